package io.txoutbox.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class AdminJsonTest {
    /** The server's mapper: Jackson 2 with its defaults. */
    private static final ObjectMapper JACKSON_2 = new ObjectMapper();

    /**
     * A Spring Boot 4 application's mapper at its strictest: Jackson 3, leaving out {@code null} values and
     * map entries (as {@code spring.jackson.default-property-inclusion=non_null} and the actuator's own
     * isolated mapper do). The server's {@code ActuatorSameJsonTest} checks a real application over HTTP.
     */
    private static final JsonMapper JACKSON_3 = JsonMapper.builder()
            .changeDefaultPropertyInclusion(v -> v.withValueInclusion(JsonInclude.Include.NON_NULL)
                    .withContentInclusion(JsonInclude.Include.NON_NULL))
            .build();

    private static final OutboxStats STATS = new OutboxStats(
            7,
            2,
            3,
            1,
            0,
            Duration.ofMillis(4_250),
            Map.of(
                    "order.placed", new OutboxStats.TypeStats(5, 2, 3, 0, 0),
                    "email.requested", new OutboxStats.TypeStats(2, 0, 0, 1, 0)),
            0,
            0);

    @Test
    void jackson_2_and_jackson_3_write_the_stats_alike_in_a_fixed_order() throws Exception {
        AdminJson.Stats stats = AdminJson.stats("shop.outbox", STATS, AdminJson.DEFAULT_MAX_TYPES);

        String json = JACKSON_2.writeValueAsString(stats);
        assertThat(JACKSON_3.writeValueAsString(stats)).isEqualTo(json);
        assertThat(json)
                .isEqualTo(
                        "{\"table\":\"shop.outbox\",\"pending\":7,\"inFlight\":2,\"retrying\":3,\"dead\":1,"
                                + "\"published\":0,\"oldestPendingAgeMillis\":4250,\"blockedAggregates\":0,\"blockedEvents\":0,"
                                + "\"types\":2,\"byType\":{"
                                + "\"email.requested\":{\"pending\":2,\"inFlight\":0,\"retrying\":0,\"dead\":1,\"published\":0},"
                                + "\"order.placed\":{\"pending\":5,\"inFlight\":2,\"retrying\":3,\"dead\":0,\"published\":0}}}");
    }

    @Test
    void jackson_2_and_jackson_3_write_a_dead_page_alike_and_keep_its_nulls() throws Exception {
        UUID first = UUID.fromString("0190a6e4-0000-7000-8000-000000000001");
        UUID second = UUID.fromString("0190a6e4-0000-7000-8000-000000000002");
        List<DeadEvent> events = List.of(
                new DeadEvent(
                        first,
                        "order",
                        "o-1",
                        "order.placed",
                        2,
                        "acme",
                        5,
                        "HTTP 410 from billing",
                        Instant.parse("2026-01-02T03:04:05.678Z"),
                        3),
                new DeadEvent(second, "order", "o-2", "order.placed", 1, null, 1, null, null, 0));

        AdminJson.DeadPage full = AdminJson.deadPage(events, DeadQuery.first(2));
        String json = JACKSON_2.writeValueAsString(full);
        assertThat(JACKSON_3.writeValueAsString(full)).isEqualTo(json);
        assertThat(json)
                .isEqualTo("{\"events\":["
                        + "{\"id\":\"" + first + "\",\"eventType\":\"order.placed\",\"eventVersion\":2,"
                        + "\"aggregateType\":\"order\",\"aggregateId\":\"o-1\",\"tenantId\":\"acme\",\"attempts\":5,"
                        + "\"lastError\":\"HTTP 410 from billing\",\"createdAt\":\"2026-01-02T03:04:05.678Z\","
                        + "\"heldBack\":3},"
                        + "{\"id\":\"" + second + "\",\"eventType\":\"order.placed\",\"eventVersion\":1,"
                        + "\"aggregateType\":\"order\",\"aggregateId\":\"o-2\",\"tenantId\":null,\"attempts\":1,"
                        + "\"lastError\":null,\"createdAt\":null,\"heldBack\":0}],"
                        + "\"next\":\"" + second + "\"}");

        AdminJson.DeadPage last = AdminJson.deadPage(events, DeadQuery.first(3));
        assertThat(last.next()).as("a page that is not full is the last").isNull();
        assertThat(JACKSON_3.writeValueAsString(last))
                .isEqualTo(JACKSON_2.writeValueAsString(last))
                .endsWith(",\"next\":null}");
    }

    @Test
    void beyond_the_bound_the_types_with_the_largest_backlog_keep_their_rows_and_the_rest_are_summed() {
        Map<String, OutboxStats.TypeStats> byType = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            byType.put("type." + i, new OutboxStats.TypeStats(i, 0, 0, 0, 100 - i));
        }
        OutboxStats stats = new OutboxStats(45, 0, 0, 0, 955, Duration.ZERO, byType, 0, 0);

        AdminJson.Stats bounded = AdminJson.stats("outbox", stats, 3);

        assertThat(bounded.types()).isEqualTo(10);
        assertThat(bounded.byType()).containsOnlyKeys("type.7", "type.8", "type.9", AdminJson.OTHER_TYPE);
        assertThat(List.copyOf(bounded.byType().keySet()))
                .as("sorted by name, the sum last")
                .containsExactly("type.7", "type.8", "type.9", AdminJson.OTHER_TYPE);
        assertThat(bounded.byType().get(AdminJson.OTHER_TYPE))
                .isEqualTo(new AdminJson.TypeCounts(0 + 1 + 2 + 3 + 4 + 5 + 6, 0, 0, 0, 100 * 7 - 21));
    }

    @Test
    void dead_query_parameters_default_to_the_first_page_of_fifty_and_name_what_is_wrong() {
        assertThat(AdminJson.deadQuery(null, null, null)).isEqualTo(DeadQuery.first(AdminJson.DEFAULT_PAGE_SIZE));
        UUID after = UUID.randomUUID();
        assertThat(AdminJson.deadQuery("order.placed", " 10 ", after.toString()))
                .isEqualTo(new DeadQuery("order.placed", after, 10));
        assertThat(AdminJson.deadQuery(" ", "", "")).isEqualTo(DeadQuery.first(50));

        assertThatThrownBy(() -> AdminJson.deadQuery(null, "1e3", null))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("limit '1e3' is not an integer from 1 to 1000");
        assertThatThrownBy(() -> AdminJson.deadQuery(null, "0", null))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("limit is 0")
                .hasMessageContaining("1000")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("limit");
        assertThatThrownBy(() -> AdminJson.deadQuery(null, null, "not-an-id"))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("after: 'not-an-id' is not an event id (a UUID)");
    }
}
