package io.txoutbox;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One event to append to the outbox. Build it with {@link #builder(String)}; the id is a UUIDv7 unless
 * you give one. The record checks its own shape (required fields, lengths, header bounds) when it is
 * made; the configurable limits (payload size, JSON validity) are checked by {@link Outbox} at append.
 * Both throw {@link OutboxValidationException} naming the field and the limit.
 *
 * <p>{@link #toString()} never prints the payload or header values: they may hold personal data.
 *
 * @param id the event id, stable across every re-publish: consumers deduplicate on it
 * @param aggregateType the kind of entity the event is about, for example {@code order}; default route
 * @param aggregateId the id of that entity; the broker key, and the unit of ordering in ordered mode
 * @param eventType what happened, for example {@code order.placed}
 * @param eventVersion the version of the payload's schema, 1 or more
 * @param payload the body, exactly as it will be published
 * @param contentType the media type of the payload; JSON types are checked for validity
 * @param headers extra headers, carried on every message (names lower case by convention)
 * @param tenantId the tenant, or {@code null}
 * @param destination a route that overrides the transport's rule (topic, subject...), or {@code null}
 * @param availableAt the earliest time to publish, or {@code null} for now (plus {@code delay})
 * @param delay how long after the append to wait before publishing, or {@code null}
 * @param maxAttempts this event's own attempt budget, or {@code null} for the relay's
 */
public record OutboxEvent(
        UUID id,
        String aggregateType,
        String aggregateId,
        String eventType,
        int eventVersion,
        byte[] payload,
        String contentType,
        Map<String, String> headers,
        String tenantId,
        String destination,
        Instant availableAt,
        Duration delay,
        Integer maxAttempts) {

    /** The content type of JSON payloads, and the default. */
    public static final String APPLICATION_JSON = "application/json";

    /** Checks the event's shape; the payload array and headers are copied so the event is immutable. */
    public OutboxEvent {
        payload = payload == null ? null : payload.clone();
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        EventValidator.checkIdentity(id, eventType, aggregateType, aggregateId, eventVersion);
        EventValidator.checkBody(payload, contentType, headers);
        EventValidator.checkDelivery(tenantId, destination, availableAt, delay, maxAttempts);
    }

    /**
     * Starts an event of the given type.
     *
     * @param eventType what happened, for example {@code order.placed}
     * @return a builder; {@link Builder#aggregate(String, String)} and a payload are required
     */
    public static Builder builder(String eventType) {
        return new Builder().eventType(eventType);
    }

    /** @return a copy of the payload bytes */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** @return the payload decoded as UTF-8 text */
    public String payloadAsString() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** @return the payload size in bytes, without copying it */
    public int payloadSize() {
        return payload.length;
    }

    byte[] payloadUnsafe() {
        return payload;
    }

    /** @return a copy of this event with the given header added, unless the event already names it */
    OutboxEvent withDefaultHeader(String name, String value) {
        if (value == null || headers.containsKey(name)) {
            return this;
        }
        Map<String, String> merged = new LinkedHashMap<>(headers);
        merged.put(name, value);
        return with(merged, tenantId);
    }

    /** @return a copy of this event with the given tenant, unless the event already names one */
    OutboxEvent withDefaultTenant(String tenant) {
        if (tenant == null || tenantId != null) {
            return this;
        }
        return with(headers, tenant);
    }

    private OutboxEvent with(Map<String, String> newHeaders, String newTenant) {
        return new OutboxEvent(
                id,
                aggregateType,
                aggregateId,
                eventType,
                eventVersion,
                payload,
                contentType,
                newHeaders,
                newTenant,
                destination,
                availableAt,
                delay,
                maxAttempts);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutboxEvent other
                && id.equals(other.id)
                && aggregateType.equals(other.aggregateType)
                && aggregateId.equals(other.aggregateId)
                && eventType.equals(other.eventType)
                && eventVersion == other.eventVersion
                && Arrays.equals(payload, other.payload)
                && contentType.equals(other.contentType)
                && headers.equals(other.headers)
                && Objects.equals(tenantId, other.tenantId)
                && Objects.equals(destination, other.destination)
                && Objects.equals(availableAt, other.availableAt)
                && Objects.equals(delay, other.delay)
                && Objects.equals(maxAttempts, other.maxAttempts);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", type=" + eventType + ", v" + eventVersion + ", aggregate=" + aggregateType
                + "/" + aggregateId + ", payload=" + payload.length + " bytes " + contentType + ", headers="
                + headers.keySet() + (tenantId == null ? "" : ", tenant=" + tenantId)
                + (destination == null ? "" : ", destination=" + destination) + "]";
    }

    /** Builds an {@link OutboxEvent}. Not thread-safe; cheap to create per event. */
    public static final class Builder {
        private UUID id;
        private String aggregateType;
        private String aggregateId;
        private String eventType;
        private int eventVersion = 1;
        private byte[] payload;
        private String contentType = APPLICATION_JSON;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private String tenantId;
        private String destination;
        private Instant availableAt;
        private Duration delay;
        private Integer maxAttempts;

        private Builder() {}

        /**
         * @param id the event id; by default a new UUIDv7 is assigned at {@link #build()}
         * @return this builder
         */
        public Builder id(UUID id) {
            this.id = id;
            return this;
        }

        /**
         * @param eventType what happened, for example {@code order.placed}
         * @return this builder
         */
        public Builder eventType(String eventType) {
            this.eventType = eventType;
            return this;
        }

        /**
         * @param aggregateType the kind of entity, for example {@code order}
         * @param aggregateId the entity's id
         * @return this builder
         */
        public Builder aggregate(String aggregateType, String aggregateId) {
            this.aggregateType = aggregateType;
            this.aggregateId = aggregateId;
            return this;
        }

        /**
         * @param eventVersion the version of the payload's schema (default 1)
         * @return this builder
         */
        public Builder version(int eventVersion) {
            this.eventVersion = eventVersion;
            return this;
        }

        /**
         * Sets a JSON payload; it is checked for validity at append.
         *
         * @param json the JSON text
         * @return this builder
         */
        public Builder jsonPayload(String json) {
            this.payload = json == null ? null : json.getBytes(StandardCharsets.UTF_8);
            this.contentType = APPLICATION_JSON;
            return this;
        }

        /**
         * Sets a payload of any media type. A JSON media type ({@code application/json} or {@code +json})
         * is still checked for validity at append.
         *
         * @param bytes the body, published as is
         * @param contentType its media type, for example {@code application/x-protobuf}
         * @return this builder
         */
        public Builder payload(byte[] bytes, String contentType) {
            this.payload = bytes;
            this.contentType = contentType;
            return this;
        }

        /**
         * @param name header name (letters, digits and {@code !#$%&'*+.^_`|~-}, at most 128)
         * @param value header value (no control characters, at most 8,192 characters)
         * @return this builder
         */
        public Builder header(String name, String value) {
            headers.put(name, value);
            return this;
        }

        /**
         * @param all headers to add (see {@link #header(String, String)} for the rules)
         * @return this builder
         * @throws OutboxValidationException when {@code all} is {@code null}
         */
        public Builder headers(Map<String, String> all) {
            if (all == null) {
                throw OutboxValidationException.missing("OutboxEvent.headers");
            }
            headers.putAll(all);
            return this;
        }

        /**
         * @param correlationId the correlation id; otherwise the scope's
         * @return this builder
         */
        public Builder correlationId(String correlationId) {
            return header(EventHeaders.CORRELATION_ID, correlationId);
        }

        /**
         * @param causationId the causation id; otherwise the scope's
         * @return this builder
         */
        public Builder causationId(String causationId) {
            return header(EventHeaders.CAUSATION_ID, causationId);
        }

        /**
         * @param tenantId the tenant; otherwise the scope's
         * @return this builder
         */
        public Builder tenant(String tenantId) {
            this.tenantId = tenantId;
            return this;
        }

        /**
         * @param destination a route that overrides the transport's routing rule
         * @return this builder
         */
        public Builder destination(String destination) {
            this.destination = destination;
            return this;
        }

        /**
         * @param delay publish no sooner than this long after the append; not negative, and the append time
         *     plus the delay must be a due time every database holds (at most 9999-12-31T23:59:59.999999Z)
         * @return this builder
         */
        public Builder delay(Duration delay) {
            this.delay = delay;
            return this;
        }

        /**
         * @param availableAt publish no sooner than this instant: from 1000-01-01T00:00:00Z to
         *     9999-12-31T23:59:59.999999Z, the due times that every supported database holds
         * @return this builder
         */
        public Builder availableAt(Instant availableAt) {
            this.availableAt = availableAt;
            return this;
        }

        /**
         * @param maxAttempts this event's attempt budget (1 to 1,000), overriding the relay's; {@code null}
         *     for the relay's
         * @return this builder
         */
        public Builder maxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * @return the event
         * @throws OutboxValidationException naming the first field that is missing or out of bounds
         */
        public OutboxEvent build() {
            return new OutboxEvent(
                    id == null ? UuidV7.next() : id,
                    aggregateType,
                    aggregateId,
                    eventType,
                    eventVersion,
                    payload,
                    contentType,
                    headers,
                    tenantId,
                    destination,
                    availableAt,
                    delay,
                    maxAttempts);
        }
    }
}
