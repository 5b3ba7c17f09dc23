package io.txoutbox.sqs;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Claimed events as a relay hands them over, for tests that call the publisher directly. */
final class Events {
    private Events() {}

    /** @return {@code n} JSON events over two aggregates, each naming {@code destination} */
    static List<ClaimedEvent> batch(int n, String destination) {
        List<ClaimedEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(event(
                    "agg-" + (i % 2),
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    "application/json",
                    Map.of(MessageHeaders.CORRELATION_ID, "corr-" + i),
                    destination));
        }
        return batch;
    }

    static ClaimedEvent event(
            String aggregateId, byte[] payload, String contentType, Map<String, String> headers, String destination) {
        return new ClaimedEvent(
                UUID.randomUUID(),
                "contract",
                aggregateId,
                "contract.tested",
                1,
                payload,
                contentType,
                headers,
                "tenant-1",
                destination,
                Instant.now(),
                1,
                null);
    }

    /** @return a JSON string value of exactly {@code bytes} bytes, quotes included */
    static byte[] jsonOfSize(int bytes) {
        StringBuilder json = new StringBuilder(bytes);
        json.append('"');
        while (json.length() < bytes - 1) {
            json.append('x');
        }
        json.append('"');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }
}
