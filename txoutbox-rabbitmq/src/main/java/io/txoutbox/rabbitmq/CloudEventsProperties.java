package io.txoutbox.rabbitmq;

import com.rabbitmq.client.AMQP;
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
 * AMQP properties in the CloudEvents AMQP binding's binary content mode, for AMQP 0-9-1: the attributes
 * in the headers table (AMQP 1.0's application-properties, which RabbitMQ maps to and from it) named with
 * the {@code cloudEvents_} prefix, the separator the binding prefers for JMS compatibility (§3.1.3.1),
 * each in its canonical string form; {@code datacontenttype} as the {@code content_type} property
 * (§3.1.1); then the headers that are not attributes. The body stays the payload. The SDK has no AMQP
 * 0-9-1 binding, so this is one written on its {@link MessageWriter} SPI, the way its own bindings are.
 * Loaded only when {@link RabbitPublisher.Builder#cloudEvents} is set.
 */
final class CloudEventsProperties implements Function<ClaimedEvent, AMQP.BasicProperties> {
    /** The binding's property-name prefix. */
    static final String PREFIX = "cloudEvents_";

    private final CloudEventsMapping mapping;

    CloudEventsProperties(CloudEventsMapping mapping) {
        this.mapping = mapping;
    }

    @Override
    public AMQP.BasicProperties apply(ClaimedEvent event) {
        HeadersWriter writer = new HeadersWriter();
        writer.writeBinary(mapping.toCloudEvent(event));
        Map<String, Object> headers = writer.headers;
        mapping.otherHeaders(event).forEach(headers::putIfAbsent);
        return Messages.properties(event)
                .builder()
                .contentType(writer.contentType)
                .headers(headers)
                .build();
    }

    /** Collects the attributes into a headers table, and the content type apart. */
    private static final class HeadersWriter implements MessageWriter<HeadersWriter, Void>, CloudEventWriter<Void> {
        private final Map<String, Object> headers = new LinkedHashMap<>();
        private String contentType;

        @Override
        public HeadersWriter create(SpecVersion version) {
            headers.put(PREFIX + CloudEventV1.SPECVERSION, version.toString());
            return this;
        }

        @Override
        public CloudEventContextWriter withContextAttribute(String name, String value) {
            if (CloudEventV1.DATACONTENTTYPE.equals(name)) {
                contentType = value;
            } else {
                headers.put(PREFIX + name, value);
            }
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
