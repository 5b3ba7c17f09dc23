package io.txoutbox.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.txoutbox.OutboxEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/** Checks the captured messages against the events the producers committed. */
final class Delivered {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Delivered() {}

    /**
     * Every message is one committed event as the router should make it: topic = route, key = aggregate id,
     * value = the payload's bytes, headers = txoutbox's; and per aggregate, the stream keeps append order.
     *
     * @param decodeHeader turns a header's text as the runtime writes it back into the value
     */
    static void assertCarried(
            List<OutboxEvent> appendOrder,
            List<Capture.Message> messages,
            Function<OutboxEvent, String> route,
            Function<String, String> decodeHeader) {
        Map<UUID, OutboxEvent> byId = new HashMap<>();
        appendOrder.forEach(e -> byId.put(e.id(), e));
        for (Capture.Message m : messages) {
            OutboxEvent e = byId.get(m.eventId());
            assertThat(e).as("message %s is a committed event", m.eventId()).isNotNull();
            assertThat(m.topic()).as("route of %s", e.id()).isEqualTo(route.apply(e));
            assertThat(m.key()).as("key of %s", e.id()).isEqualTo(e.aggregateId());
            assertThat(m.value()).as("payload bytes of %s", e.id()).isEqualTo(e.payload());
            Map<String, String> h = new LinkedHashMap<>();
            m.headers().forEach((k, v) -> h.put(k, v == null ? null : decodeHeader.apply(v)));
            assertThat(h.get("event-id")).isEqualTo(e.id().toString());
            assertThat(h.get("event-type")).isEqualTo(e.eventType());
            assertThat(h.get("event-version")).isEqualTo(Integer.toString(e.eventVersion()));
            assertThat(h.get("aggregate-type")).isEqualTo(e.aggregateType());
            assertThat(h.get("aggregate-id")).isEqualTo(e.aggregateId());
            assertThat(h.get("tenant-id")).isEqualTo(e.tenantId());
            assertThat(h.get("content-type")).isEqualTo(e.contentType());
            assertThat(headersColumn(h.get(DebeziumOutboxConfig.HEADERS_HEADER)))
                    .as("headers of %s", e.id())
                    .isEqualTo(e.headers());
        }
        assertThat(perAggregate(
                        messages.stream().map(m -> byId.get(m.eventId())).toList()))
                .as("per-aggregate order in the stream")
                .isEqualTo(perAggregate(appendOrder));
    }

    /** @return each aggregate's event ids in the order given (only aggregates present in both lists matter) */
    static Map<String, List<UUID>> perAggregate(List<OutboxEvent> events) {
        Map<String, List<UUID>> m = new HashMap<>();
        for (OutboxEvent e : events) {
            m.computeIfAbsent(e.aggregateType() + "/" + e.aggregateId(), k -> new ArrayList<>())
                    .add(e.id());
        }
        return m;
    }

    /** @return a JSON-encoded header value (Debezium Server's json header format) as plain text */
    static String jsonText(String encoded) {
        try {
            var node = JSON.readTree(encoded);
            return node.isNull() ? null : node.isTextual() ? node.textValue() : node.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> headersColumn(String json) {
        try {
            return JSON.readValue(json, new TypeReference<Map<String, String>>() {});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
