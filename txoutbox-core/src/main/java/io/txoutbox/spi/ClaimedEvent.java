package io.txoutbox.spi;

import io.txoutbox.EventHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * An event as a relay claimed it from the outbox table: what a {@link Publisher} sends. The id is the
 * same on every attempt, so a consumer can drop the duplicates that at-least-once delivery brings.
 *
 * <p>{@link #toString()} never prints the payload or header values.
 *
 * @param id the stable event id (UUIDv7 when appended by txoutbox)
 * @param aggregateType the kind of entity
 * @param aggregateId the entity's id
 * @param eventType what happened
 * @param eventVersion the payload schema version
 * @param payload the body, exactly as appended
 * @param contentType the media type of the payload
 * @param headers the headers, including correlation, causation and trace context where known
 * @param tenantId the tenant, or {@code null}
 * @param destination the route override, or {@code null}
 * @param createdAt when the event was appended
 * @param attempt which attempt this is: 1 for the first
 * @param maxAttempts the event's own attempt budget, or {@code null} for the relay's
 */
public record ClaimedEvent(
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
        Instant createdAt,
        int attempt,
        Integer maxAttempts) {

    /** Copies the headers so the event is immutable. */
    public ClaimedEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(payload, "payload");
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** @return the payload bytes (not a copy: do not modify them) */
    @Override
    public byte[] payload() {
        return payload;
    }

    /** @return the payload decoded as UTF-8 text */
    public String payloadAsString() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /**
     * @param name a header name
     * @return its value, or {@code null}
     */
    public String header(String name) {
        return headers.get(name);
    }

    /** @return the correlation id header, or {@code null} */
    public String correlationId() {
        return headers.get(EventHeaders.CORRELATION_ID);
    }

    /** @return the causation id header, or {@code null} */
    public String causationId() {
        return headers.get(EventHeaders.CAUSATION_ID);
    }

    /** @return the W3C traceparent header, or {@code null} */
    public String traceparent() {
        return headers.get(EventHeaders.TRACEPARENT);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClaimedEvent other
                && id.equals(other.id)
                && attempt == other.attempt
                && eventType.equals(other.eventType)
                && aggregateType.equals(other.aggregateType)
                && aggregateId.equals(other.aggregateId)
                && eventVersion == other.eventVersion
                && Arrays.equals(payload, other.payload)
                && contentType.equals(other.contentType)
                && headers.equals(other.headers)
                && Objects.equals(tenantId, other.tenantId)
                && Objects.equals(destination, other.destination)
                && Objects.equals(createdAt, other.createdAt)
                && Objects.equals(maxAttempts, other.maxAttempts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, attempt);
    }

    @Override
    public String toString() {
        return "ClaimedEvent[id=" + id + ", type=" + eventType + ", v" + eventVersion + ", aggregate=" + aggregateType
                + "/" + aggregateId + ", attempt=" + attempt + ", payload=" + payload.length + " bytes "
                + contentType + ", headers=" + headers.keySet() + "]";
    }
}
