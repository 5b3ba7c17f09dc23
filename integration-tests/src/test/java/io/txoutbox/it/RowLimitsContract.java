package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.Outbox;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, classes 3 and 4: rows at the limits of their columns. No arithmetic of a claim can fail for
 * one row (attempts at the column's maximum, budgets of zero or less), a row whose attempt budget is
 * spent goes dead at the claim without being read or published, the byte budget counts every
 * variable-size column the claim reads, and headers larger than any valid event's go dead unread.
 */
abstract class RowLimitsContract extends DatabaseTest {
    private static final int MAX_HEADERS_BYTES = 2 * 1024 * 1024;

    // ---- class 3: one row stops a table ------------------------------------------------------------

    @Test
    void a_row_with_attempts_at_the_column_maximum_goes_dead_and_no_claim_fails() {
        Outbox outbox = newOutbox();
        UUID maxed = insertRow(outbox, row("o-1").put("attempts", Integer.MAX_VALUE));
        UUID good = insertRow(outbox, row("o-2"));
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).listener(errorsInto(errors)).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).as("nothing loops").isZero();
        }
        assertThat(errors).as("no claim failed").isEmpty();
        assertThat(broker.publishedIds()).containsExactly(good);
        assertThat(column(outbox, maxed, "status")).isEqualTo("dead");
        assertThat(column(outbox, maxed, "attempts")).isEqualTo(String.valueOf(Integer.MAX_VALUE));
        assertThat(column(outbox, maxed, "last_error"))
                .isEqualTo("gave up after " + Integer.MAX_VALUE + " attempts (the budget is 8) whose last did not"
                        + " end in a mark: the row could not be read, or its relay stopped first");
    }

    @Test
    void a_row_whose_own_budget_is_spent_goes_dead_at_the_claim_unpublished_and_its_attempts_stay() {
        Outbox outbox = newOutbox();
        UUID spent = insertRow(outbox, row("o-1").put("attempts", 3).put("max_attempts", 3));
        UUID good = insertRow(outbox, row("o-2").put("attempts", 2).put("max_attempts", 3));
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
        }
        assertThat(broker.publishedIds()).containsExactly(good);
        assertThat(column(outbox, spent, "status")).isEqualTo("dead");
        assertThat(column(outbox, spent, "attempts")).isEqualTo("3");
        assertThat(column(outbox, spent, "last_error")).startsWith("gave up after 3 attempts (the budget is 3)");
    }

    @Test
    void a_row_without_a_budget_of_its_own_is_held_to_the_relays_budget_at_the_claim() {
        Outbox outbox = newOutbox();
        UUID spent = insertRow(outbox, row("o-1").put("attempts", 5));
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).maxAttempts(3).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(broker.publishedCount()).isZero();
        assertThat(column(outbox, spent, "status")).isEqualTo("dead");
        assertThat(column(outbox, spent, "last_error")).startsWith("gave up after 5 attempts (the budget is 3)");
    }

    @Test
    void budgets_of_zero_or_less_and_extreme_attempts_go_dead_naming_the_column() {
        Outbox outbox = newOutbox();
        UUID zero = insertRow(outbox, row("o-1").put("max_attempts", 0));
        UUID minimum = insertRow(outbox, row("o-2").put("max_attempts", Integer.MIN_VALUE));
        UUID negativeAttempts = insertRow(outbox, row("o-3").put("attempts", Integer.MIN_VALUE));
        UUID good = insertRow(outbox, row("o-4").put("max_attempts", Integer.MAX_VALUE));
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).listener(errorsInto(errors)).build()) {
            assertThat(relay.runOnce()).isEqualTo(4);
            assertThat(relay.runOnce()).as("nothing loops").isZero();
        }
        assertThat(errors).isEmpty();
        assertThat(broker.publishedIds()).isEmpty();
        assertThat(column(outbox, zero, "last_error"))
                .isEqualTo("unreadable row: OutboxEvent.maxAttempts is 0; it must be between 1 and 1000");
        assertThat(column(outbox, minimum, "last_error"))
                .isEqualTo("unreadable row: OutboxEvent.maxAttempts is " + Integer.MIN_VALUE
                        + "; it must be between 1 and 1000");
        assertThat(column(outbox, negativeAttempts, "last_error")).contains("attempts is negative");
        assertThat(column(outbox, good, "last_error"))
                .as("append refuses such a budget")
                .contains("maxAttempts");
        for (UUID id : List.of(zero, minimum, negativeAttempts, good)) {
            assertThat(column(outbox, id, "status")).isEqualTo("dead");
        }
    }

    @Test
    void a_row_due_at_minus_infinity_is_published_and_the_next_claim_from_its_position_does_not_fail() {
        Assumptions.assumeTrue(database() == TestDatabase.POSTGRES, "only PostgreSQL has infinite times");
        Outbox outbox = newOutbox();
        execute("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload,"
                + " available_at) VALUES (gen_random_uuid(), 'order', 'o-1', 'order.placed', '\\x7b7d',"
                + " '-infinity')");
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).listener(errorsInto(errors)).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
            UUID next =
                    appendCommitted(outbox, event("order.placed", "o-2")).get(0).id();
            assertThat(relay.runOnce()).as("the claim after it").isEqualTo(1);
            assertThat(broker.publishedIds()).contains(next);
        }
        assertThat(errors).isEmpty();
        assertThat(broker.publishedCount()).isEqualTo(2);
    }

    // ---- class 4: the byte budget counts headers ---------------------------------------------------

    @Test
    void the_byte_budget_counts_the_headers_a_claim_reads() {
        Outbox outbox = newOutbox();
        String headers = headersOf(5, 8_000);
        for (int i = 0; i < 4; i++) {
            insertRow(outbox, row("o-" + i).put("headers", headers));
        }
        ClaimResult claimed;
        try (OutboxStore store =
                Outbox.builder(dataSource()).table(outbox.table()).buildStore()) {
            claimed = store.claim("me", 100, 50_000, Duration.ofMinutes(1), Instant.now());
        }
        assertThat(claimed.events())
                .as("40 KB of headers each: two rows start within 50 KB")
                .hasSize(2);
        assertThat(count("SELECT count(*) FROM " + outbox.table() + " WHERE lease_owner IS NULL AND attempts = 0"))
                .isEqualTo(2);
    }

    @Test
    void headers_larger_than_any_valid_event_has_go_dead_naming_the_limit_and_the_rest_publish() {
        Outbox outbox = newOutbox();
        String huge = "{\"h\": \"" + "x".repeat(MAX_HEADERS_BYTES) + "\"}";
        UUID bad = insertRow(outbox, row("o-1").put("headers", huge));
        UUID good = insertRow(outbox, row("o-2"));
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).listener(errorsInto(errors)).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).isZero();
        }
        assertThat(errors).isEmpty();
        assertThat(broker.publishedIds()).containsExactly(good);
        assertThat(column(outbox, bad, "status")).isEqualTo("dead");
        assertThat(column(outbox, bad, "last_error"))
                .matches("unreadable row: headers are \\d+ bytes; the limit is " + MAX_HEADERS_BYTES + " bytes");
    }

    /** @return a JSON object of {@code count} headers, each value {@code chars} long */
    static String headersOf(int count, int chars) {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            json.append(i == 0 ? "" : ", ")
                    .append("\"h")
                    .append(i)
                    .append("\": \"")
                    .append("v".repeat(chars))
                    .append('"');
        }
        return json.append('}').toString();
    }

    static RelayListener errorsInto(List<Throwable> errors) {
        return new RelayListener() {
            @Override
            public void onError(String relay, String phase, Throwable error) {
                errors.add(error);
            }
        };
    }
}
