package io.txoutbox.webhook;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
        return new ClaimedEvent(
                id,
                "order",
                "o-" + id.toString().substring(0, 8),
                type,
                1,
                ("{\"type\":\"" + type + "\",\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
                "application/json",
                headers,
                "tenant-1",
                null,
                Instant.now(),
                1,
                null);
    }
}
