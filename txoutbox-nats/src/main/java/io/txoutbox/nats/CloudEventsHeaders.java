package io.txoutbox.nats;

import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import java.util.Map;
import java.util.function.Function;

/**
 * The headers of the CloudEvents NATS binding's binary content mode (NATS 2.2 headers): every attribute,
 * {@code datacontenttype} included, as a header named {@code ce-<attribute>} (§3.1.3.1), its value
 * percent-encoded (§3.1.3.2); then the headers that are not attributes. The payload stays the message
 * body. The SDK has no NATS binding, so this is one written on {@link
 * CloudEventsMapping#binaryAttributes}. Loaded only when {@link NatsPublisher.Builder#cloudEvents} is set.
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
        return mapping.binaryHeaders(event, PREFIX, CloudEventsMapping::percentEncode);
    }
}
