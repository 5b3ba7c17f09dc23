package io.txoutbox.nats;

import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.message.MessageWriter;
import io.cloudevents.core.v1.CloudEventV1;
import io.cloudevents.rw.CloudEventContextWriter;
import io.cloudevents.rw.CloudEventWriter;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The headers of the CloudEvents NATS binding's binary content mode (NATS 2.2 headers): every attribute,
 * {@code datacontenttype} included, as a header named {@code ce-<attribute>} (§3.1.3.1), its value
 * percent-encoded (§3.1.3.2); then the headers that are not attributes. The payload stays the message
 * body. The SDK has no NATS binding, so this is one written on its {@link MessageWriter} SPI, the way its
 * own bindings are. Loaded only when {@link NatsPublisher.Builder#cloudEvents} is set.
 */
final class CloudEventsHeaders implements Function<ClaimedEvent, Map<String, String>> {
    /** The binding's header-name prefix. */
    static final String PREFIX = "ce-";

    private final CloudEventsMapping mapping;

    CloudEventsHeaders(CloudEventsMapping mapping) {
        this.mapping = mapping;
    }

    @Override
    public Map<String, String> apply(ClaimedEvent event) {
        HeadersWriter writer = new HeadersWriter();
        writer.writeBinary(mapping.toCloudEvent(event));
        mapping.otherHeaders(event).forEach(writer.headers::putIfAbsent);
        return writer.headers;
    }

    /** Collects the attributes as NATS headers. */
    private static final class HeadersWriter implements MessageWriter<HeadersWriter, Void>, CloudEventWriter<Void> {
        private final Map<String, String> headers = new LinkedHashMap<>();

        @Override
        public HeadersWriter create(SpecVersion version) {
            headers.put(PREFIX + CloudEventV1.SPECVERSION, version.toString());
            return this;
        }

        @Override
        public CloudEventContextWriter withContextAttribute(String name, String value) {
            headers.put(PREFIX + name, CloudEventsMapping.percentEncode(value));
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
