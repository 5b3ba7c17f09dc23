package io.txoutbox.webhook;

import io.cloudevents.http.HttpMessageFactory;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The headers of the CloudEvents HTTP binding's binary content mode, written by the SDK's own HTTP
 * writer: the attributes as {@code ce-} headers (values percent-encoded, as the binding's §3.1.3.2 asks),
 * {@code datacontenttype} as {@code Content-Type} (which the publisher sets from the event anyway); then
 * the headers that are not attributes. The body stays the payload, so the signature is unchanged. Loaded
 * only when {@link WebhookPublisher.Builder#cloudEvents} is set.
 */
final class CloudEventsHeaders implements Function<ClaimedEvent, Map<String, String>> {
    private static final String CE_PREFIX = "ce-";

    private final CloudEventsMapping mapping;

    CloudEventsHeaders(CloudEventsMapping mapping) {
        this.mapping = mapping;
    }

    @Override
    public Map<String, String> apply(ClaimedEvent event) {
        Map<String, String> headers = new LinkedHashMap<>();
        HttpMessageFactory.createWriter(
                        (name, value) -> headers.put(
                                name,
                                name.toLowerCase(Locale.ROOT).startsWith(CE_PREFIX)
                                        ? CloudEventsMapping.percentEncode(value)
                                        : value),
                        body -> {})
                .writeBinary(mapping.toCloudEvent(event));
        mapping.otherHeaders(event).forEach(headers::putIfAbsent);
        return headers;
    }
}
