package io.txoutbox.webhook;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.test.transport.ClaimedEvents;
import java.util.Map;
import java.util.UUID;

/** Claimed events for tests. */
final class Events {
    private Events() {}

    static ClaimedEvent event(String type) {
        return event(type, Map.of(MessageHeaders.CORRELATION_ID, "corr-1"));
    }

    static ClaimedEvent event(String type, Map<String, String> headers) {
        UUID id = UUID.randomUUID();
        return ClaimedEvents.claimed("order", "o-" + id.toString().substring(0, 8), type, e -> {
            e.id = id;
            e.json("{\"type\":\"" + type + "\",\"id\":\"" + id + "\"}");
            e.headers = headers;
            e.tenant = "tenant-1";
        });
    }
}
