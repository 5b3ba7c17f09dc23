package io.txoutbox.reliability;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.Outbox;
import io.txoutbox.handler.EventHandlers;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rows written with plain SQL by another program, with garbage in every column. The database refuses
 * what its constraints forbid (with the SQLState); the relay marks what it cannot read dead with the
 * reason, publishes what it can, and never loops. Cases already covered in integration-tests
 * (SchemaTest: a nested-object header, numbers as header values) are not repeated here.
 */
class RawRowsTest extends OutboxTableTest {
    private static final String COLUMNS = "aggregate_type, aggregate_id, event_type, payload, headers";

    @ParameterizedTest
    @ValueSource(strings = {"[1, 2]", "\"text\"", "42", "true", "null"})
    void headers_that_are_not_a_json_object_go_dead_with_the_reason_and_do_not_block_the_rest(String headers) {
        Outbox outbox = outboxBuilder().build();
        UUID bad = insertRaw(outbox, COLUMNS, "'order', 'o-1', 'order.placed', '\\x7b7d', '" + headers + "'");
        List<UUID> good = ids(appendCommitted(outbox, List.of(event("o-2"))));
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).as("nothing loops").isZero();
        }
        assertThat(broker.publishedIds()).containsExactlyElementsOf(good);
        assertThat(column(outbox, bad, "status")).isEqualTo("dead");
        assertThat(column(outbox, bad, "last_error")).isEqualTo("unreadable row: headers is not a JSON object");
    }

    @Test
    void a_header_holding_an_array_goes_dead_naming_the_header() {
        Outbox outbox = outboxBuilder().build();
        UUID bad = insertRaw(outbox, COLUMNS, "'order', 'o-1', 'order.placed', '\\x7b7d', '{\"tags\": [\"a\"]}'");
        try (Relay relay = outbox.relay(new RecordingPublisher()).build()) {
            relay.runOnce();
        }
        assertThat(column(outbox, bad, "last_error"))
                .isEqualTo("unreadable row: headers 'tags' is a nested START_ARRAY; header values must be strings");
    }

    @Test
    void null_and_boolean_header_values_are_read_null_dropped_booleans_as_text() {
        Outbox outbox = outboxBuilder().build();
        insertRaw(
                outbox,
                COLUMNS,
                "'order', 'o-1', 'order.placed', '\\x7b7d', '{\"a\": null, \"b\": true, \"c\": \"\"}'");
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).singleElement().satisfies(e -> {
            assertThat(e.headers()).doesNotContainKey("a");
            assertThat(e.header("b")).isEqualTo("true");
            assertThat(e.header("c")).isEmpty();
        });
    }

    @Test
    void a_status_outside_the_check_constraint_is_refused_by_the_database() {
        Outbox outbox = outboxBuilder().build();
        assertThatThrownBy(() -> insertRaw(
                        outbox, COLUMNS + ", status", "'order', 'o-1', 'order.placed', '\\x7b7d', '{}', 'sent'"))
                .hasRootCauseInstanceOf(SQLException.class)
                .rootCause()
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"))
                .hasMessageContaining(outbox.table() + "_status_check");
    }

    @ParameterizedTest
    @ValueSource(strings = {"aggregate_type", "aggregate_id", "event_type", "payload", "headers", "created_at"})
    void a_null_in_a_required_column_is_refused_by_the_database(String column) {
        Outbox outbox = outboxBuilder().build();
        String values = "'order', 'o-1', 'order.placed', '\\x7b7d', '{}', now()";
        String[] names = (COLUMNS + ", created_at").split(", ");
        String[] parts = values.split(", ");
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(column)) {
                parts[i] = "NULL";
            }
        }
        assertThatThrownBy(() -> insertRaw(outbox, String.join(", ", names), String.join(", ", parts)))
                .rootCause()
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23502"))
                .hasMessageContaining(column);
    }

    @Test
    void an_id_that_is_not_a_uuid_or_is_taken_is_refused_by_the_database() {
        Outbox outbox = outboxBuilder().build();
        assertThatThrownBy(() -> execute("INSERT INTO " + outbox.table() + " (id, " + COLUMNS
                        + ") VALUES ('order-1', 'order', 'o-1', 'order.placed', '\\x7b7d', '{}')"))
                .rootCause()
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("22P02"));
        UUID id = insertRaw(outbox, COLUMNS, "'order', 'o-1', 'order.placed', '\\x7b7d', '{}'");
        assertThatThrownBy(() -> execute("INSERT INTO " + outbox.table() + " (id, " + COLUMNS + ") VALUES ('" + id
                        + "', 'order', 'o-1', 'order.placed', '\\x7b7d', '{}')"))
                .rootCause()
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23505"));
    }

    @Test
    void headers_that_are_not_json_at_all_are_refused_by_the_database() {
        Outbox outbox = outboxBuilder().build();
        assertThatThrownBy(() -> insertRaw(outbox, COLUMNS, "'order', 'o-1', 'order.placed', '\\x7b7d', '{oops'"))
                .rootCause()
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("22P02"));
    }

    @Test
    void negative_attempts_go_dead_naming_the_column() {
        Outbox outbox = outboxBuilder().build();
        UUID id = insertRaw(outbox, COLUMNS + ", attempts", "'order', 'o-1', 'order.placed', '\\x7b7d', '{}', -5");
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.attempts()).isEmpty();
        assertThat(column(outbox, id, "status")).isEqualTo("dead");
        assertThat(column(outbox, id, "last_error")).isEqualTo("unreadable row: attempts is negative (-5)");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -3})
    void a_max_attempts_of_zero_or_less_goes_dead_naming_the_rule_without_a_publish(int maxAttempts) {
        Outbox outbox = outboxBuilder().build();
        UUID id = insertRaw(
                outbox, COLUMNS + ", max_attempts", "'order', 'o-1', 'order.placed', '\\x7b7d', '{}', " + maxAttempts);
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
            assertThat(relay.runOnce()).isZero();
        }
        assertThat(broker.attempts()).isEmpty();
        assertThat(column(outbox, id, "status")).isEqualTo("dead");
        assertThat(column(outbox, id, "last_error"))
                .isEqualTo("unreadable row: OutboxEvent.maxAttempts is " + maxAttempts
                        + "; it must be between 1 and 1000");
    }

    @Test
    void null_ish_event_types_reach_handlers_and_blank_ones_go_dead_before_any_publish() {
        Outbox outbox = outboxBuilder().build();
        UUID nullText = insertRaw(outbox, COLUMNS, "'order', 'o-1', 'null', '\\x7b7d', '{}'");
        UUID blank = insertRaw(outbox, COLUMNS, "'order', 'o-2', '  ', '\\x7b7d', '{}'");
        UUID empty = insertRaw(outbox, COLUMNS, "'order', 'o-3', '', '\\x7b7d', '{}'");
        EventHandlers handlers =
                EventHandlers.builder().on("order.placed", e -> {}).build();
        try (Relay relay = outbox.relay(handlers).build()) {
            assertThat(relay.runOnce()).isEqualTo(3);
        }
        assertThat(column(outbox, nullText, "last_error")).startsWith("no handler for event type 'null' (routes: ");
        assertThat(column(outbox, blank, "last_error"))
                .isEqualTo("unreadable row: OutboxEvent.eventType is blank; it must hold text");
        assertThat(column(outbox, empty, "last_error"))
                .isEqualTo("unreadable row: OutboxEvent.eventType is blank; it must hold text");
    }

    @Test
    void a_row_leased_to_a_relay_that_never_existed_is_in_flight_until_the_lease_passes_then_published() {
        Outbox outbox = outboxBuilder().build();
        UUID ghost = insertRaw(
                outbox,
                COLUMNS + ", lease_owner, lease_expires_at",
                "'order', 'o-1', 'order.placed', '\\x7b7d', '{}', 'ghost', now() + interval '1 hour'");
        UUID expired = insertRaw(
                outbox,
                COLUMNS + ", lease_owner, lease_expires_at",
                "'order', 'o-2', 'order.placed', '\\x7b7d', '{}', 'ghost', now() - interval '1 second'");
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.publishedIds()).containsExactly(expired);
        assertThatOutbox(outbox).hasInFlight(1);
        execute("UPDATE " + outbox.table() + " SET lease_expires_at = now() WHERE id = '" + ghost + "'");
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.publishedIds()).containsExactlyInAnyOrder(expired, ghost);
    }

    @Test
    void bytes_that_are_not_json_under_a_json_content_type_are_published_verbatim() {
        // Append refuses such a payload; the relay does not parse payloads, so a row written by another
        // program reaches the broker as it is (see rows_that_append_would_refuse_go_dead_naming_the_rule).
        Outbox outbox = outboxBuilder().build();
        UUID id = insertRaw(outbox, COLUMNS, "'order', 'o-1', 'order.placed', '\\xff00fe', '{}'");
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).singleElement().satisfies(e -> {
            assertThat(e.id()).isEqualTo(id);
            assertThat(e.contentType()).isEqualTo("application/json");
            assertThat(e.payload()).containsExactly(0xff, 0x00, 0xfe);
        });
    }

    @Test
    void rows_that_append_would_refuse_go_dead_naming_the_rule() {
        // The relay applies append's shape rules to rows written by others; it does not parse payloads
        // (see bytes_that_are_not_json_under_a_json_content_type_are_published_verbatim).
        Outbox outbox = outboxBuilder().build();
        UUID blankAggregate = insertRaw(outbox, COLUMNS, "'order', ' ', 'order.placed', '\\x7b7d', '{}'");
        UUID versionZero =
                insertRaw(outbox, COLUMNS + ", event_version", "'order', 'o-2', 'order.placed', '\\x7b7d', '{}', 0");
        UUID noContentType =
                insertRaw(outbox, COLUMNS + ", content_type", "'order', 'o-3', 'order.placed', '\\x7b7d', '{}', ''");
        UUID noBudget =
                insertRaw(outbox, COLUMNS + ", max_attempts", "'order', 'o-4', 'order.placed', '\\x7b7d', '{}', 0");
        UUID valid = insertRaw(outbox, COLUMNS, "'order', 'o-5', 'order.placed', '\\x7b7d', '{}'");
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.publishedIds()).containsExactly(valid);
        assertThat(column(outbox, blankAggregate, "last_error")).contains("OutboxEvent.aggregateId is blank");
        assertThat(column(outbox, versionZero, "last_error")).contains("OutboxEvent.eventVersion is 0");
        assertThat(column(outbox, noContentType, "last_error")).contains("OutboxEvent.contentType is blank");
        assertThat(column(outbox, noBudget, "last_error")).contains("OutboxEvent.maxAttempts is 0");
        assertThat(column(outbox, blankAggregate, "status")).isEqualTo("dead");
    }

    private static List<UUID> ids(List<io.txoutbox.OutboxEvent> events) {
        return events.stream().map(io.txoutbox.OutboxEvent::id).toList();
    }
}
