package io.txoutbox.mqtt;

import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import java.util.function.Function;

/**
 * Messages in the CloudEvents MQTT binding's structured content mode, the only one MQTT 3.1.1 allows
 * (it has no user properties): the whole event in the JSON event format, written by the SDK's JSON
 * format, with the headers that are not attributes as extension attributes. Loaded only when {@link
 * MqttPublisher.Builder#cloudEvents} is set.
 */
final class CloudEventsMessages implements Function<ClaimedEvent, byte[]> {
    private final CloudEventsMapping mapping;

    CloudEventsMessages(CloudEventsMapping mapping) {
        this.mapping = mapping;
    }

    @Override
    public byte[] apply(ClaimedEvent event) {
        return mapping.toStructured(event);
    }
}
