package io.txoutbox.cloudevents;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.message.MessageWriter;
import io.cloudevents.core.v1.CloudEventV1;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.rw.CloudEventContextWriter;
import io.cloudevents.rw.CloudEventWriter;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * How an outbox event becomes a <a href="https://github.com/cloudevents/spec">CloudEvent 1.0</a>: the
 * opt-in message format of the transports ({@code cloudEvents(mapping)} on the Kafka, webhook, RabbitMQ,
 * NATS and MQTT builders). Each transport writes it with its protocol binding's own names; this class
 * holds what is common to all of them.
 *
 * <table>
 *   <caption>The attributes</caption>
 *   <tr><th>attribute</th><th>value</th></tr>
 *   <tr><td>{@code id}</td><td>the event id: the same on every re-publish, so consumers deduplicate on it</td></tr>
 *   <tr><td>{@code source}</td><td>{@link Builder the configured URI-reference} (required)</td></tr>
 *   <tr><td>{@code specversion}</td><td>{@code 1.0}</td></tr>
 *   <tr><td>{@code type}</td><td>the event type</td></tr>
 *   <tr><td>{@code subject}</td><td>the aggregate id</td></tr>
 *   <tr><td>{@code time}</td><td>when the event was appended (UTC)</td></tr>
 *   <tr><td>{@code datacontenttype}</td><td>the event's content type</td></tr>
 *   <tr><td>{@code dataschema}</td><td>only with {@link Builder#dataSchema}</td></tr>
 *   <tr><td>{@value #VERSION_EXTENSION}</td><td>the event version (an Integer extension)</td></tr>
 *   <tr><td>{@code data}</td><td>the payload bytes, exactly as appended</td></tr>
 * </table>
 *
 * <p>The other standard headers ({@code aggregate-type}, {@code tenant-id}, correlation, causation,
 * {@code traceparent}, {@code tracestate}) and the event's own headers are not CloudEvents attributes:
 * in binary content mode they travel beside the attributes as the plain headers they always are ({@link
 * #otherHeaders}); in structured mode, which has no headers, they become extension attributes ({@link
 * #toStructured}).
 *
 * <pre>{@code
 * CloudEventsMapping cloudEvents = CloudEventsMapping.source("https://orders.example.com/outbox");
 * KafkaPublisher kafka = KafkaPublisher.builder().bootstrapServers("broker:9092").cloudEvents(cloudEvents).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe. {@link #toString()} shows the source only.
 */
public final class CloudEventsMapping {
    /** The extension attribute that carries the event version: an Integer, {@code 1} by default. */
    public static final String VERSION_EXTENSION = "eventversion";

    /** The media type of structured mode: one event in the JSON event format. */
    public static final String STRUCTURED_CONTENT_TYPE = JsonFormat.CONTENT_TYPE;

    /** The standard headers that become CloudEvents attributes, so binary mode does not repeat them. */
    private static final Set<String> MAPPED_HEADERS = Set.of(
            MessageHeaders.EVENT_ID,
            MessageHeaders.EVENT_TYPE,
            MessageHeaders.EVENT_VERSION,
            MessageHeaders.AGGREGATE_ID,
            MessageHeaders.CONTENT_TYPE);

    /** Attribute names an extension may never take (the spec's context attributes and data members). */
    private static final Set<String> RESERVED = Set.of(
            CloudEventV1.ID,
            CloudEventV1.SOURCE,
            CloudEventV1.SPECVERSION,
            CloudEventV1.TYPE,
            CloudEventV1.DATACONTENTTYPE,
            CloudEventV1.DATASCHEMA,
            CloudEventV1.SUBJECT,
            CloudEventV1.TIME,
            "data",
            "data_base64",
            VERSION_EXTENSION);

    private static final JsonFormat JSON = new JsonFormat();
    private static final JsonFormat JSON_AS_BASE64 = new JsonFormat().withForceJsonDataToBase64();

    /** What a JSON reader with Jackson's default limits accepts: what a consumer of the envelope reads. */
    private static final JsonFactory DEFAULT_READER = new JsonFactory();

    private final URI source;
    private final Function<ClaimedEvent, URI> dataSchema;

    private CloudEventsMapping(URI source, Function<ClaimedEvent, URI> dataSchema) {
        this.source = source;
        this.dataSchema = dataSchema;
    }

    /**
     * @param source the {@code source} attribute of every event: a URI-reference naming the producer, for
     *     example {@code https://orders.example.com/outbox} or {@code /orders}
     * @return the mapping with that source and no {@code dataschema}
     * @throws OutboxValidationException when the source is blank or not a URI-reference
     */
    public static CloudEventsMapping source(String source) {
        return builder(source).build();
    }

    /**
     * @param source the {@code source} attribute, as {@link #source(String)}
     * @return a builder, for the optional settings
     */
    public static Builder builder(String source) {
        return new Builder(source);
    }

    /** @return the {@code source} attribute of every event */
    public URI source() {
        return source;
    }

    /**
     * The event as a CloudEvent in binary content mode: the attributes above, and the payload as its
     * data.
     *
     * @param event a claimed event
     * @return the CloudEvent
     * @throws IllegalArgumentException when the event cannot be a valid CloudEvent (the SDK's checks;
     *     transports make such an event dead with the reason)
     */
    public CloudEvent toCloudEvent(ClaimedEvent event) {
        return builderOf(event).build();
    }

    /**
     * The event's attributes as a binary content mode binding writes them: {@code specversion} first,
     * then every other attribute and extension in the SDK's order, each in its canonical string form, not
     * yet prefixed or encoded for a protocol. A binding for a protocol the SDK has none for (NATS, AMQP
     * 0-9-1) names and encodes them its way.
     *
     * @param event a claimed event
     * @return the attributes by name, in order
     * @throws IllegalArgumentException when the event cannot be a valid CloudEvent
     */
    public Map<String, String> binaryAttributes(ClaimedEvent event) {
        AttributesWriter writer = new AttributesWriter();
        writer.writeBinary(toCloudEvent(event));
        return writer.attributes;
    }

    /**
     * The headers of binary content mode for a binding that carries every attribute as a header named
     * {@code <prefix><attribute>} ({@code datacontenttype} included): {@code specversion} as it is, every
     * other value through {@code encode}; then the {@link #otherHeaders}, unless a name is taken, those
     * whose name starts with the prefix (which a consumer reads as extension attributes) through {@code
     * encode} too.
     *
     * @param event a claimed event
     * @param prefix the binding's header-name prefix, for example {@code ce-}
     * @param encode how the binding encodes a value, for example {@link #percentEncode}
     * @return the headers, in order
     * @throws IllegalArgumentException when the event cannot be a valid CloudEvent
     */
    public Map<String, String> binaryHeaders(ClaimedEvent event, String prefix, UnaryOperator<String> encode) {
        Map<String, String> headers = new LinkedHashMap<>();
        binaryAttributes(event)
                .forEach((name, value) -> headers.put(
                        prefix + name, CloudEventV1.SPECVERSION.equals(name) ? value : encode.apply(value)));
        // An event's own header that carries the prefix is read by a consumer as an extension attribute,
        // so its value is encoded as an attribute's is; otherwise a '%' or a non-ASCII character in it
        // would reach the consumer changed.
        otherHeaders(event)
                .forEach((name, value) -> headers.putIfAbsent(
                        name, name.regionMatches(true, 0, prefix, 0, prefix.length()) ? encode.apply(value) : value));
        return headers;
    }

    /**
     * The headers a binary-mode message carries beside the CloudEvents attributes: every {@link
     * MessageHeaders} header except those that became attributes ({@code event-id}, {@code event-type},
     * {@code event-version}, {@code aggregate-id}, {@code content-type}), in the same stable order.
     *
     * @param event a claimed event
     * @return the other headers, unmodifiable
     */
    public Map<String, String> otherHeaders(ClaimedEvent event) {
        Map<String, String> other = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : MessageHeaders.of(event).entrySet()) {
            if (!MAPPED_HEADERS.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                other.put(h.getKey(), h.getValue());
            }
        }
        return Collections.unmodifiableMap(other);
    }

    /**
     * The event in structured content mode: one JSON object in the JSON event format ({@value
     * #STRUCTURED_CONTENT_TYPE}). A payload of a JSON content type that is one JSON value in UTF-8 is
     * embedded as {@code data}; any other payload, one of a JSON type that is not valid JSON included, is
     * {@code data_base64}, so the envelope is always valid JSON and the payload arrives unchanged. {@link #otherHeaders} become extension attributes named by the header
     * name in lower case with every character outside {@code a-z} and {@code 0-9} dropped ({@code
     * correlation-id} becomes {@code correlationid}; {@code traceparent} and {@code tracestate} keep their
     * names, those of the Distributed Tracing extension). A header whose name maps to nothing or to a
     * reserved name is left out; of two headers that map to one name, the first by name is kept.
     *
     * @param event a claimed event
     * @return the UTF-8 JSON bytes
     * @throws IllegalArgumentException when the event cannot be a valid CloudEvent
     */
    public byte[] toStructured(ClaimedEvent event) {
        CloudEventBuilder builder = builderOf(event);
        Set<String> taken = new HashSet<>(RESERVED);
        // Sorted by name, so that which of two headers mapping to one name is kept does not depend on
        // the order of a hash map.
        for (Map.Entry<String, String> h : new TreeMap<>(otherHeaders(event)).entrySet()) {
            String name = extensionName(h.getKey());
            if (!name.isEmpty() && taken.add(name)) {
                builder.withExtension(name, h.getValue());
            }
        }
        CloudEvent ce = builder.build();
        // The SDK embeds the data of a JSON content type as it is and writes any other as data_base64;
        // forcing base64 changes only what it would have embedded.
        return (readableJson(event.payload()) ? JSON : JSON_AS_BASE64).serialize(ce);
    }

    /**
     * Percent-encodes a header value as the HTTP and NATS bindings require (§3.1.3.2 of each): space,
     * {@code "}, {@code %} and every character outside printable ASCII become {@code %XY} of their UTF-8
     * bytes, upper-case; the rest stays as it is.
     *
     * @param value an attribute's canonical string form
     * @return the header value
     */
    public static String percentEncode(String value) {
        StringBuilder out = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean plain = c > 0x20 && c < 0x7F && c != '"' && c != '%';
            if (plain) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(value.length() + 16).append(value, 0, i);
            }
            int end = Character.isHighSurrogate(c) && i + 1 < value.length() ? i + 2 : i + 1;
            for (byte b : value.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xF, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
            }
            i = end - 1;
        }
        return out == null ? value : out.toString();
    }

    private CloudEventBuilder builderOf(ClaimedEvent event) {
        CloudEventBuilder builder = CloudEventBuilder.v1()
                .withId(event.id().toString())
                .withSource(source)
                .withType(event.eventType())
                .withSubject(event.aggregateId())
                .withExtension(VERSION_EXTENSION, event.eventVersion());
        if (event.createdAt() != null) {
            builder.withTime(event.createdAt().atOffset(ZoneOffset.UTC));
        }
        URI schema = dataSchema == null ? null : dataSchema.apply(event);
        if (schema != null) {
            builder.withDataSchema(schema);
        }
        if (event.contentType() == null) {
            builder.withData(event.payload());
        } else {
            builder.withData(event.contentType(), event.payload());
        }
        return builder;
    }

    /**
     * Whether the payload can be embedded as {@code data}: the SDK writes a payload of a JSON content type
     * into the envelope as it is, so one that is not a single JSON value in UTF-8 (a row written by another
     * program; the relay does not parse payloads) would make the whole envelope unreadable. Such a payload
     * travels as {@code data_base64} instead, unchanged.
     */
    private static boolean readableJson(byte[] payload) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload))
                    .toString();
        } catch (CharacterCodingException e) {
            return false;
        }
        try (JsonParser parser = DEFAULT_READER.createParser(text)) {
            if (parser.nextToken() == null) {
                return false;
            }
            parser.skipChildren();
            return parser.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    static String extensionName(String header) {
        StringBuilder name = new StringBuilder(header.length());
        for (char c : header.toLowerCase(Locale.ROOT).toCharArray()) {
            if (c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
                name.append(c);
            }
        }
        return name.toString();
    }

    @Override
    public String toString() {
        return "CloudEventsMapping[source=" + source + (dataSchema == null ? "" : ", dataschema") + "]";
    }

    /** Builds a {@link CloudEventsMapping}; the source is checked at {@link #build()}. */
    public static final class Builder {
        private final String source;
        private Function<ClaimedEvent, URI> dataSchema;

        private Builder(String source) {
            this.source = source;
        }

        /**
         * @param dataSchema gives the {@code dataschema} URI of an event (for example from its type and
         *     version), or {@code null} for none (default: no {@code dataschema})
         * @return this builder
         */
        public Builder dataSchema(Function<ClaimedEvent, URI> dataSchema) {
            this.dataSchema = Objects.requireNonNull(dataSchema, "dataSchema");
            return this;
        }

        /**
         * @return the mapping
         * @throws OutboxValidationException naming {@code CloudEventsMapping.source} when it is missing,
         *     blank or not a URI-reference
         */
        public CloudEventsMapping build() {
            if (source == null || source.isBlank()) {
                throw new OutboxValidationException(
                        "CloudEventsMapping.source",
                        "a URI-reference",
                        "CloudEventsMapping.source is " + (source == null ? "missing" : "blank")
                                + "; give a URI-reference naming the producer, for example /orders");
            }
            URI uri;
            try {
                uri = new URI(source);
            } catch (URISyntaxException e) {
                throw new OutboxValidationException(
                        "CloudEventsMapping.source",
                        "a URI-reference",
                        // The source is not quoted: a text that is no URI may be anything, a pasted secret.
                        "CloudEventsMapping.source is not a URI-reference: " + e.getReason() + " at index "
                                + e.getIndex() + " of " + source.length() + " characters");
            }
            return new CloudEventsMapping(uri, dataSchema);
        }
    }

    /** Collects the attributes of a binary-mode write, on the SDK's {@link MessageWriter} SPI. */
    private static final class AttributesWriter
            implements MessageWriter<AttributesWriter, Void>, CloudEventWriter<Void> {
        private final Map<String, String> attributes = new LinkedHashMap<>();

        @Override
        public AttributesWriter create(SpecVersion version) {
            attributes.put(CloudEventV1.SPECVERSION, version.toString());
            return this;
        }

        @Override
        public CloudEventContextWriter withContextAttribute(String name, String value) {
            attributes.put(name, value);
            return this;
        }

        @Override
        public Void end(CloudEventData data) {
            return null; // the body is the payload, sent as it is
        }

        @Override
        public Void end() {
            return null;
        }

        @Override
        public Void setEvent(EventFormat format, byte[] value) {
            throw new UnsupportedOperationException("binary content mode only");
        }
    }
}
