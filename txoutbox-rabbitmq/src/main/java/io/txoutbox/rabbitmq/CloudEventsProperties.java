package io.txoutbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import io.cloudevents.core.v1.CloudEventV1;
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
 * 0-9-1 binding, so this is one written on {@link CloudEventsMapping#binaryAttributes}.
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
        Map<String, Object> headers = new LinkedHashMap<>();
        String contentType = null;
        for (Map.Entry<String, String> attribute :
                mapping.binaryAttributes(event).entrySet()) {
            if (CloudEventV1.DATACONTENTTYPE.equals(attribute.getKey())) {
                contentType = attribute.getValue();
            } else {
                headers.put(PREFIX + attribute.getKey(), attribute.getValue());
            }
        }
        mapping.otherHeaders(event).forEach(headers::putIfAbsent);
        return Messages.properties(event)
                .builder()
                .contentType(contentType)
                .headers(headers)
                .build();
    }
}
