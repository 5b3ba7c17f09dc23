package io.txoutbox.test.transport;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/** Claimed events as a relay hands them over, for tests that call a publisher directly. */
public final class ClaimedEvents {
    private ClaimedEvents() {}

    /** @return {@code n} JSON events over two aggregates, each naming {@code destination} */
    public static List<ClaimedEvent> batch(int n, String destination) {
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

    /**
     * @param aggregateId the aggregate, of type {@code contract}
     * @param payload the payload
     * @param contentType its content type
     * @param headers the event's headers
     * @param destination the event's own destination, or {@code null} for the router's
     * @return a first-attempt event of type {@code contract.tested}, tenant {@code tenant-1}, a fresh id
     */
    public static ClaimedEvent event(
            String aggregateId, byte[] payload, String contentType, Map<String, String> headers, String destination) {
        return claimed("contract", aggregateId, "contract.tested", e -> {
            e.payload = payload;
            e.contentType = contentType;
            e.headers = headers;
            e.tenant = "tenant-1";
            e.destination = destination;
            e.createdAt = Instant.now();
        });
    }

    /**
     * @param aggregateType the aggregate's type
     * @param aggregateId the aggregate's id
     * @param eventType the event's type
     * @param spec changes the defaults of {@link Spec} that the test cares about
     * @return the event, on its first attempt, with the relay's maximum of attempts
     */
    public static ClaimedEvent claimed(
            String aggregateType, String aggregateId, String eventType, Consumer<Spec> spec) {
        Spec e = new Spec();
        spec.accept(e);
        return new ClaimedEvent(
                e.id,
                aggregateType,
                aggregateId,
                eventType,
                e.version,
                e.payload,
                e.contentType,
                e.headers,
                e.tenant,
                e.destination,
                e.createdAt,
                1,
                null);
    }

    /**
     * @param bytes the size wanted, at least 2
     * @return a JSON string value of exactly {@code bytes} bytes, quotes included
     */
    public static byte[] jsonOfSize(int bytes) {
        StringBuilder json = new StringBuilder(bytes);
        json.append('"');
        while (json.length() < bytes - 1) {
            json.append('x');
        }
        json.append('"');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * What a test may set about a claimed event, in {@link #claimed(String, String, String, Consumer)};
     * each field starts at the default that a test seldom changes.
     */
    public static final class Spec {
        /** The event id; a fresh one. */
        public UUID id = UUID.randomUUID();

        /** The event's schema version; 1. */
        public int version = 1;

        /** The payload; the JSON {@code {}}. */
        public byte[] payload = "{}".getBytes(StandardCharsets.UTF_8);

        /** The payload's content type; {@code application/json}. */
        public String contentType = "application/json";

        /** The headers; none. */
        public Map<String, String> headers = Map.of();

        /** The tenant; none. */
        public String tenant;

        /** The event's own destination; none, the router's. */
        public String destination;

        /** When it was appended; now, to the microsecond, as a database keeps it. */
        public Instant createdAt = Instant.now().truncatedTo(ChronoUnit.MICROS);

        private Spec() {}

        /** @param json a JSON payload: its UTF-8 bytes, of content type {@code application/json} */
        public void json(String json) {
            payload = json.getBytes(StandardCharsets.UTF_8);
            contentType = "application/json";
        }
    }
}
