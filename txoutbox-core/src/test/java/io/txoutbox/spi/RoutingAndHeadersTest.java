package io.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RoutingAndHeadersTest {

    @Test
    void the_event_destination_wins_over_the_rule_and_rules_compose() {
        ClaimedEvent plain = event(null, Map.of());
        ClaimedEvent routed = event("audit", Map.of());
        assertThat(Router.BY_AGGREGATE_TYPE.destinationOf(plain)).isEqualTo("order");
        assertThat(Router.BY_EVENT_TYPE.destinationOf(plain)).isEqualTo("order.placed");
        assertThat(Router.BY_AGGREGATE_TYPE.withPrefix("events.").destinationOf(plain))
                .isEqualTo("events.order");
        assertThat(Router.BY_AGGREGATE_TYPE.withPrefix("events.").destinationOf(routed))
                .isEqualTo("audit");
        assertThat(Router.fixed("all").destinationOf(plain)).isEqualTo("all");
        assertThat(Router.of(e -> e.tenantId() + "." + e.aggregateType()).destinationOf(plain))
                .isEqualTo("t1.order");
    }

    @Test
    void standard_headers_come_first_and_win_over_event_headers_of_the_same_name() {
        ClaimedEvent e = event(null, Map.of("event-id", "forged", "correlation-id", "c-1", "x-own", "v"));
        Map<String, String> headers = MessageHeaders.of(e);
        assertThat(headers.keySet())
                .startsWith(
                        "event-id",
                        "event-type",
                        "event-version",
                        "aggregate-type",
                        "aggregate-id",
                        "tenant-id",
                        "content-type");
        assertThat(headers)
                .containsEntry("event-id", e.id().toString())
                .containsEntry("event-version", "3")
                .containsEntry("correlation-id", "c-1")
                .containsEntry("x-own", "v")
                .containsEntry("content-type", "application/json");
    }

    private static ClaimedEvent event(String destination, Map<String, String> headers) {
        return new ClaimedEvent(
                UUID.randomUUID(),
                "order",
                "o-1",
                "order.placed",
                3,
                "{}".getBytes(),
                "application/json",
                headers,
                "t1",
                destination,
                Instant.EPOCH,
                1,
                null);
    }
}
