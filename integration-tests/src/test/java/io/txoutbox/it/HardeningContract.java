package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.harness.SlowBroker;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, hardening: no row stalls a table, no failure between claim and mark escapes the attempt
 * budget, a batch has a byte budget, no driver text carries a statement's values into an exception,
 * text the database or a log cannot take is refused naming the field, and a publisher that blocks
 * before it returns causes no duplicate.
 */
abstract class HardeningContract extends DatabaseTest {

    // ---- 1. one unreadable row never stops a table -------------------------------------------------

    @Test
    void a_row_whose_id_is_not_a_uuid_goes_dead_by_its_key_and_every_other_row_flows() {
        Assumptions.assumeTrue(database() == TestDatabase.MARIADB, "only MariaDB keeps ids as text");
        Outbox outbox = newOutbox();
        execute("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " VALUES ('order-1', 'order', 'o-1', 'order.placed', X'7b7d')");
        execute("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " VALUES ('1-1-1-1-1', 'order', 'o-2', 'order.placed', X'7b7d')");
        List<OutboxEvent> good = appendCommitted(outbox, event("order.placed", "o-3"), event("order.paid", "o-3"));
        RecordingPublisher broker = new RecordingPublisher();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (Relay relay = outbox.relay(broker)
                .pollInterval(Duration.ofMillis(50))
                .listener(errorsInto(errors))
                .build()) {
            relay.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() == 2);
            await().atMost(Duration.ofSeconds(20)).until(() -> relay.metrics().dead() == 2);
            appendCommitted(outbox, event("order.shipped", "o-3"));
            await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() == 3);
            assertThat(relay.isRunning()).isTrue();
        }
        assertThat(errors).as("no claim failed").isEmpty();
        assertThat(broker.publishedIds())
                .containsAll(List.of(good.get(0).id(), good.get(1).id()));
        assertThat(count("SELECT count(*) FROM " + outbox.table() + " WHERE status = 'dead'"
                        + " AND last_error LIKE 'unreadable row: id is not a UUID%' AND lease_owner IS NULL"))
                .isEqualTo(2);
        assertThat(outbox.admin().stats().dead()).isEqualTo(2);
        assertThat(outbox.admin().dead(io.txoutbox.DeadQuery.first(100)))
                .as("listing does not fail on them")
                .isEmpty();
    }

    @Test
    void rows_that_break_a_rule_each_go_dead_with_their_reason_in_one_claim_and_the_rest_is_published() {
        Outbox outbox = newOutbox();
        UUID headersArray = insertRow(outbox, row("o-1").put("headers", "[1, 2]"));
        UUID lineFeedType = insertRow(outbox, row("o-2").put("event_type", "order.placed\nforged log line"));
        UUID crAggregate = insertRow(outbox, row("o-3\r").put("aggregate_type", "order"));
        UUID separator = insertRow(outbox, row("o-4").put("tenant_id", "t\u2028x"));
        UUID versionZero = insertRow(outbox, row("o-5").put("event_version", 0));
        UUID good = insertRow(outbox, row("o-6"));
        assertThat(publishedByTwoClaims(outbox, 6)).containsExactly(good);
        assertThat(column(outbox, headersArray, "last_error"))
                .isEqualTo("unreadable row: headers is not a JSON object");
        assertThat(column(outbox, lineFeedType, "last_error"))
                .isEqualTo("unreadable row: OutboxEvent.eventType has a control character (code 10) at 12; it must be"
                        + " printable text: no control characters, line or paragraph separators, or unpaired"
                        + " surrogates");
        assertThat(column(outbox, crAggregate, "last_error"))
                .startsWith("unreadable row: OutboxEvent.aggregateId has a control character (code 13) at 3");
        assertThat(column(outbox, separator, "last_error"))
                .startsWith("unreadable row: OutboxEvent.tenantId has a control character (code 8232) at 1");
        assertThat(column(outbox, versionZero, "last_error")).contains("OutboxEvent.eventVersion is 0");
        for (UUID id : List.of(headersArray, lineFeedType, crAggregate, separator, versionZero)) {
            assertThat(column(outbox, id, "status")).isEqualTo("dead");
        }
    }

    @Test
    void a_nul_in_text_that_the_database_stores_goes_dead_naming_the_field() {
        Assumptions.assumeTrue(database() != TestDatabase.POSTGRES, "PostgreSQL cannot store a NUL in text");
        Outbox outbox = newOutbox();
        UUID nul = insertRow(outbox, row("o-\u00001"));
        UUID good = insertRow(outbox, row("o-2"));
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
        }
        assertThat(broker.publishedIds()).containsExactly(good);
        assertThat(column(outbox, nul, "last_error"))
                .startsWith("unreadable row: OutboxEvent.aggregateId has a control character (code 0) at 2");
    }

    @Test
    void headers_that_are_not_json_go_dead_without_quoting_them() {
        Assumptions.assumeTrue(database() != TestDatabase.POSTGRES, "PostgreSQL's jsonb refuses such headers");
        Outbox outbox = newOutbox();
        UUID bad = insertRow(outbox, row("o-1").put("headers", "{\"authorization\": Bearer-SECRET-1}"));
        try (Relay relay = outbox.relay(new RecordingPublisher()).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(column(outbox, bad, "status")).isEqualTo("dead");
        assertThat(column(outbox, bad, "last_error"))
                .startsWith("unreadable row: headers is not valid JSON")
                .doesNotContain("SECRET");
    }

    // ---- 2. a failure between claim and mark ends in a mark ----------------------------------------

    @Test
    void a_required_column_that_allows_null_fails_the_start_up_check_naming_the_column_and_the_fix() {
        Outbox made = newOutbox();
        execute(dropNotNull(made.table(), "payload", "LONGBLOB"));
        execute(dropNotNull(made.table(), "event_version", "INT DEFAULT 1"));
        assertThatThrownBy(
                        () -> Outbox.builder(dataSource()).table(made.table()).build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("column 'payload' allows NULL; txoutbox needs a value in every row")
                .hasMessageContaining("column 'event_version' allows NULL")
                .hasMessageContaining(
                        database() == TestDatabase.MARIADB
                                ? "ALTER TABLE " + made.table() + " MODIFY payload <its type> NOT NULL"
                                : "ALTER TABLE " + made.table() + " ALTER COLUMN payload SET NOT NULL");
    }

    @Test
    void a_null_where_txoutbox_needs_a_value_goes_dead_at_the_first_claim_and_never_loops() {
        Outbox made = newOutbox();
        for (String[] column : new String[][] {
            {"payload", "LONGBLOB"},
            {"event_version", "INT DEFAULT 1"},
            {"content_type", "VARCHAR(255) DEFAULT 'application/json'"},
            {"attempts", "INT DEFAULT 0"}
        }) {
            execute(dropNotNull(made.table(), column[0], column[1]));
        }
        Outbox outbox = Outbox.builder(dataSource())
                .table(made.table())
                .validateSchema(false)
                .build();
        UUID noPayload = insertRow(outbox, row("o-1").put("payload", null));
        UUID noVersion = insertRow(outbox, row("o-2").put("event_version", null));
        UUID noContentType = insertRow(outbox, row("o-3").put("content_type", null));
        UUID noAttempts = insertRow(outbox, row("o-4").put("attempts", null));
        UUID good = insertRow(outbox, row("o-5"));
        assertThat(publishedByTwoClaims(outbox, 5)).containsExactly(good);
        assertThat(column(outbox, noPayload, "last_error"))
                .isEqualTo("unreadable row: column 'payload' is NULL; txoutbox needs a value");
        assertThat(column(outbox, noVersion, "last_error"))
                .isEqualTo("unreadable row: column 'event_version' is NULL; txoutbox needs a value");
        assertThat(column(outbox, noContentType, "last_error"))
                .isEqualTo("unreadable row: column 'content_type' is NULL; txoutbox needs a value");
        assertThat(column(outbox, noAttempts, "last_error"))
                .isEqualTo("unreadable row: column 'attempts' is NULL; txoutbox needs a value");
    }

    @Test
    void an_error_thrown_between_claim_and_mark_still_marks_the_batch_and_the_budget_makes_it_dead() {
        Outbox outbox = newOutbox();
        UUID id = appendCommitted(outbox, event("order.placed", "o-1")).get(0).id();
        Publisher outOfMemory = batch -> {
            throw new OutOfMemoryError("Java heap space (a test's)");
        };
        try (Relay relay =
                outbox.relay(outOfMemory).maxAttempts(2).backoff(tiny()).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(column(outbox, id, "status")).isEqualTo("pending");
            assertThat(column(outbox, id, "lease_owner"))
                    .as("marked, not left leased")
                    .isNull();
            await().atMost(Duration.ofSeconds(10)).until(() -> relay.runOnce() == 1);
        }
        assertThat(column(outbox, id, "status")).isEqualTo("dead");
        assertThat(column(outbox, id, "attempts")).isEqualTo("2");
        assertThat(column(outbox, id, "last_error"))
                .isEqualTo("gave up after 2 attempts; last error: publisher failed: OutOfMemoryError: Java heap space"
                        + " (a test's)");
    }

    @Test
    void a_failure_after_the_publish_and_before_the_mark_still_marks_the_batch() {
        AtomicBoolean failNext = new AtomicBoolean();
        Outbox outbox = outboxBuilder()
                .clock(() -> {
                    if (failNext.getAndSet(false)) {
                        throw new IllegalStateException("clock failed");
                    }
                    return Instant.now();
                })
                .build();
        UUID id = appendCommitted(outbox, event("order.placed", "o-1")).get(0).id();
        // The relay reads its clock after the broker answered, to time the mark: that read fails once.
        Publisher armsTheClock = batch -> {
            failNext.set(true);
            return CompletableFuture.completedFuture(List.of(PublishOutcome.retry("broker said later")));
        };
        try (Relay relay = outbox.relay(armsTheClock).maxAttempts(1).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(failNext)
                    .as("the clock was read after the broker answered, and failed")
                    .isFalse();
            assertThat(column(outbox, id, "status")).isEqualTo("dead");
        }
        // The mark times itself with the system clock when the outbox's fails, so the broker's answer is kept.
        assertThat(column(outbox, id, "last_error"))
                .isEqualTo("gave up after 1 attempts; last error: broker said later");
    }

    // ---- 3. the byte budget --------------------------------------------------------------------------

    @Test
    void the_byte_budget_bounds_every_claim_and_a_row_larger_than_it_goes_alone() {
        Outbox outbox = outboxBuilder().maxPayloadBytes(64 * 1024).build();
        List<OutboxEvent> appended = new ArrayList<>();
        appended.add(appendCommitted(outbox, sized("big-1", 30_000)).get(0));
        appended.add(appendCommitted(outbox, sized("big-2", 30_000)).get(0));
        for (int i = 0; i < 6; i++) {
            appended.add(appendCommitted(outbox, sized("mid-" + i, 4_000)).get(0));
        }
        for (int i = 0; i < 5; i++) {
            appended.add(appendCommitted(outbox, sized("small-" + i, 100)).get(0));
        }
        List<List<Integer>> batches = new CopyOnWriteArrayList<>();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker)
                .maxBatchBytes(10_000)
                .listener(new RelayListener() {
                    @Override
                    public void onBatch(BatchReport report) {
                        batches.add(report.events().stream()
                                .map(e -> e.payload().length)
                                .toList());
                    }
                })
                .build()) {
            assertThat(relay.runOnce()).as("the first big row alone").isEqualTo(1);
            while (relay.runOnce() > 0) {
                // drain
            }
        }
        assertThat(broker.publishedCount()).isEqualTo(appended.size());
        assertThat(batches.get(0)).containsExactly(30_000);
        assertThat(batches.get(1)).containsExactly(30_000);
        assertThat(batches).allSatisfy(sizes -> {
            int before = sizes.stream().mapToInt(Integer::intValue).sum() - sizes.get(sizes.size() - 1);
            assertThat(before).as("bytes before the last row of %s", sizes).isLessThan(10_000);
        });
        assertThat(batches.get(2)).containsExactly(4_000, 4_000, 4_000);
        assertThat(rows(outbox)).isZero();
    }

    @Test
    void a_claim_leases_no_row_beyond_its_byte_budget() {
        Outbox outbox = outboxBuilder().maxPayloadBytes(64 * 1024).build();
        for (int i = 0; i < 4; i++) {
            appendCommitted(outbox, sized("mid-" + i, 4_000));
        }
        ClaimResult claimed;
        try (OutboxStore store =
                Outbox.builder(dataSource()).table(outbox.table()).buildStore()) {
            claimed = store.claim("me", 100, 5_000, Duration.ofMinutes(1), Instant.now());
        }
        assertThat(claimed.events()).hasSize(2);
        assertThat(count("SELECT count(*) FROM " + outbox.table() + " WHERE lease_owner = 'me'"))
                .isEqualTo(2);
        assertThat(count("SELECT count(*) FROM " + outbox.table() + " WHERE lease_owner IS NULL AND attempts = 0"))
                .as("the rows beyond the budget are untouched")
                .isEqualTo(2);
    }

    @Test
    void a_byte_budget_below_one_is_refused_at_build() {
        Outbox outbox = newOutbox();
        assertThatThrownBy(() ->
                        outbox.relay(new RecordingPublisher()).maxBatchBytes(0).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("Relay.Builder.maxBatchBytes is 0; it must be 1 or more");
    }

    // ---- 6. no statement value in what txoutbox throws ------------------------------------------------

    @Test
    void a_failed_batch_append_carries_no_value_of_the_statement_in_message_cause_or_stack_trace() {
        Outbox outbox = newOutbox();
        OutboxEvent first = secretEvent("1");
        OutboxEvent second = secretEvent("2");
        appendCommitted(outbox, first);
        OutboxEvent duplicate = copyWithId(second, first.id());
        Throwable batch = catchThrowable(() -> appendCommitted(outbox, second, duplicate));
        Throwable single = catchThrowable(() -> appendCommitted(outbox, duplicate));
        assertThat(batch).isInstanceOf(OutboxStoreException.class);
        assertThat(single).isInstanceOf(OutboxStoreException.class);
        assertThat(((OutboxStoreException) batch).sqlState()).startsWith("23");
        assertThat(batch.getMessage())
                .startsWith("txoutbox append on table '" + outbox.table() + "' failed: ")
                .contains("duplicate key");
        assertNoSecret(batch, List.of(first, second));
        assertNoSecret(single, List.of(first, second));
    }

    @Test
    void a_check_constraint_of_the_user_refusing_a_row_carries_no_value_of_the_row() {
        Outbox outbox = newOutbox();
        execute("ALTER TABLE " + outbox.table() + " ADD CONSTRAINT " + outbox.table()
                + "_tenant_check CHECK (tenant_id <> 'tenant-SECRET-1')");
        OutboxEvent secret = secretEvent("1");
        Throwable refused = catchThrowable(() -> appendCommitted(outbox, secret));
        Throwable refusedInBatch = catchThrowable(() -> appendCommitted(outbox, secretEvent("2"), secret));
        assertThat(refused).isInstanceOf(OutboxStoreException.class);
        assertThat(refused.getMessage()).contains("check constraint");
        assertNoSecret(refused, List.of(secret));
        assertNoSecret(refusedInBatch, List.of(secret));
        assertThat(rows(outbox)).isZero();
    }

    @Test
    void a_value_too_long_for_a_narrowed_column_carries_no_value() {
        Outbox outbox = newOutbox();
        execute(
                database() == TestDatabase.MARIADB
                        ? "ALTER TABLE " + outbox.table() + " MODIFY destination VARCHAR(8)"
                        : "ALTER TABLE " + outbox.table() + " ALTER COLUMN destination "
                                + (database() == TestDatabase.H2 ? "SET DATA TYPE " : "TYPE ") + "VARCHAR(8)");
        OutboxEvent secret = secretEvent("1");
        Throwable refused = catchThrowable(() -> appendCommitted(outbox, secret));
        assertThat(refused).isInstanceOf(OutboxStoreException.class);
        assertNoSecret(refused, List.of(secret));
    }

    // ---- 7. text the database or a log cannot take ---------------------------------------------------

    @Test
    void text_a_database_or_a_log_cannot_take_is_refused_at_append_naming_the_field_and_nothing_is_written() {
        Outbox outbox = newOutbox();
        List<String> bad =
                List.of("a\u0000b", "a\rb", "a\nb", "a\u0085b", "a\u2028b", "a\ud800b", "a\udc00b", "a\u007fb");
        for (String text : bad) {
            expectRefused(outbox, "OutboxEvent.eventType", () -> base().eventType(text)
                    .build());
            expectRefused(outbox, "OutboxEvent.aggregateType", () -> base().aggregate(text, "o-1")
                    .build());
            expectRefused(outbox, "OutboxEvent.aggregateId", () -> base().aggregate("order", text)
                    .build());
            expectRefused(
                    outbox, "OutboxEvent.tenantId", () -> base().tenant(text).build());
            expectRefused(outbox, "OutboxEvent.destination", () -> base().destination(text)
                    .build());
            expectRefused(outbox, "OutboxEvent.contentType", () -> base().payload(new byte[] {1}, text)
                    .build());
            expectRefused(outbox, "OutboxEvent.headers", () -> base().header("h", text)
                    .build());
        }
        // The caller's transaction is untouched: the refused event never reached the database.
        List<OutboxEvent> written = outbox.inTransaction(c -> {
            assertThatThrownBy(() -> outbox.append(
                            c, base().aggregate("order", "o\u00001").build()))
                    .isInstanceOf(OutboxValidationException.class);
            return List.of(outbox.append(
                    c,
                    base().aggregate("order", "o-1 \u00e9\ud83d\ude00")
                            .header("h", "a\tb")
                            .build()));
        });
        assertThat(rows(outbox)).isEqualTo(1);
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).singleElement().satisfies(e -> {
            assertThat(e.id()).isEqualTo(written.get(0).id());
            assertThat(e.aggregateId())
                    .as("accents and a surrogate pair survive")
                    .isEqualTo("o-1 \u00e9\ud83d\ude00");
            assertThat(e.header("h")).as("a tab in a header value survives").isEqualTo("a\tb");
        });
    }

    // ---- 12. a publisher that blocks before it returns ---------------------------------------------

    @Test
    void a_publisher_that_blocks_before_returning_is_timed_from_the_call_and_no_event_is_published_twice() {
        Outbox outbox = newOutbox();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(appendCommitted(outbox, event("order.placed", "o-" + i))
                    .get(0)
                    .id());
        }
        SlowBroker broker = new SlowBroker();
        AtomicBoolean first = new AtomicBoolean(true);
        // Like a client connecting on its first publish: the first call blocks 2.5 s before returning; every
        // confirmation takes 1 s; a cancelled send is not delivered (the relay gave up on it in time).
        Publisher slowFirstCall = batch -> {
            if (first.getAndSet(false)) {
                sleep(2_500);
            }
            return broker.confirmAfter(batch, Duration.ofMillis(1_000));
        };
        Relay.Builder relays = outbox.relay(slowFirstCall)
                .leaseDuration(Duration.ofSeconds(3))
                .publishTimeout(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(100))
                .backoff(tiny());
        try (Relay a = relays.name("a").build();
                Relay b = relays.name("b").build()) {
            a.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> !first.get());
            b.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows(outbox) == 0);
        } finally {
            broker.close();
        }
        Map<UUID, Integer> published = broker.deliveries();
        assertThat(published.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(published)
                .allSatisfy((id, n) -> assertThat(n).as("publishes of %s", id).isEqualTo(1));
    }

    @Test
    void a_lease_is_extended_only_for_its_owner_on_the_database_clock() {
        Outbox outbox = newOutbox();
        UUID mine = appendCommitted(outbox, event("order.placed", "o-1")).get(0).id();
        UUID theirs =
                appendCommitted(outbox, event("order.placed", "o-2")).get(0).id();
        try (OutboxStore store =
                Outbox.builder(dataSource()).table(outbox.table()).buildStore()) {
            ClaimResult claimedByMe = store.claim("me", 1, Duration.ofSeconds(2), Instant.now());
            ClaimResult claimedByThem = store.claim("them", 1, Duration.ofSeconds(2), Instant.now());
            assertThat(claimedByMe.events()).extracting(ClaimedEvent::id).containsExactly(mine);
            assertThat(claimedByThem.events()).extracting(ClaimedEvent::id).containsExactly(theirs);
            Instant theirExpiry = time(outbox, theirs, "lease_expires_at");

            assertThat(store.extendLease("me", List.of(mine, theirs), Duration.ofMinutes(10)))
                    .isEqualTo(1);
            assertThat(time(outbox, theirs, "lease_expires_at"))
                    .as("not the owner: untouched")
                    .isEqualTo(theirExpiry);
            assertThat(count(
                            "SELECT count(*) FROM " + outbox.table() + " WHERE id = ? AND lease_expires_at > "
                                    + plusMinutes(9),
                            mine))
                    .as("ten minutes from the database's now")
                    .isEqualTo(1);
            assertThat(store.extendLease("nobody", List.of(mine), Duration.ofMinutes(20)))
                    .isZero();
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------

    /**
     * Steps a relay twice: the first claim takes all of the table's rows, the second none, so that no row
     * comes back.
     *
     * @return the ids the relay handed to the broker
     */
    private static Set<UUID> publishedByTwoClaims(Outbox outbox, int rows) {
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(rows);
            assertThat(relay.runOnce()).as("nothing loops").isZero();
        }
        return broker.publishedIds();
    }

    private String plusMinutes(int minutes) {
        return switch (database()) {
            case POSTGRES -> "now() + interval '" + minutes + " minutes'";
            case MARIADB -> "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL " + minutes + " MINUTE)";
            case H2 -> "DATEADD(MINUTE, " + minutes + ", CURRENT_TIMESTAMP)";
        };
    }

    private static Backoff tiny() {
        return new Backoff(Duration.ofMillis(10), 1.0, Duration.ofMillis(10), false);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static RelayListener errorsInto(List<Throwable> errors) {
        return new RelayListener() {
            @Override
            public void onError(String relay, String phase, Throwable error) {
                errors.add(error);
            }
        };
    }

    private static OutboxEvent.Builder base() {
        return OutboxEvent.builder("order.placed").aggregate("order", "o-1").jsonPayload("{}");
    }

    private void expectRefused(Outbox outbox, String field, java.util.function.Supplier<OutboxEvent> build) {
        assertThatThrownBy(build::get)
                .as(field)
                .isInstanceOf(OutboxValidationException.class)
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).field()).isEqualTo(field))
                .hasMessageStartingWith(field);
        assertThat(rows(outbox)).isZero();
    }

    private static OutboxEvent sized(String aggregateId, int bytes) {
        byte[] payload = new byte[bytes];
        java.util.Arrays.fill(payload, (byte) 'x');
        return OutboxEvent.builder("blob.stored")
                .aggregate("blob", aggregateId)
                .payload(payload, "application/octet-stream")
                .build();
    }

    /** An event with a distinct secret in every field a user fills. */
    private static OutboxEvent secretEvent(String n) {
        return OutboxEvent.builder("type-SECRET-" + n)
                .aggregate("aggtype-SECRET-" + n, "aggid-SECRET-" + n)
                .payload(
                        ("{\"card\":\"payload-SECRET-" + n + "\"}").getBytes(StandardCharsets.UTF_8),
                        "application/x-SECRET-" + n)
                .header("authorization", "Bearer token-SECRET-" + n)
                .header("x-api-key", "apikey-SECRET-" + n)
                .correlationId("corr-SECRET-" + n)
                .tenant("tenant-SECRET-" + n)
                .destination("dest-SECRET-" + n)
                .build();
    }

    private static OutboxEvent copyWithId(OutboxEvent e, UUID id) {
        return OutboxEvent.builder(e.eventType())
                .id(id)
                .aggregate(e.aggregateType(), e.aggregateId())
                .payload(e.payload(), e.contentType())
                .headers(e.headers())
                .tenant(e.tenantId())
                .destination(e.destination())
                .build();
    }

    /** Everything a user could print of a throwable: message, toString, stack trace, next exceptions. */
    private static String printed(Throwable t) {
        StringWriter out = new StringWriter();
        PrintWriter writer = new PrintWriter(out);
        t.printStackTrace(writer);
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            writer.println(c);
            writer.println(c.getMessage());
            if (c instanceof SQLException sql) {
                for (SQLException next = sql.getNextException();
                        next != null && seen.add(next);
                        next = next.getNextException()) {
                    next.printStackTrace(writer);
                }
            }
        }
        writer.flush();
        return out.toString();
    }

    private static void assertNoSecret(Throwable thrown, List<OutboxEvent> events) {
        assertThat(thrown).isNotNull();
        String printed = printed(thrown);
        assertThat(printed).doesNotContainIgnoringCase("SECRET");
        for (OutboxEvent e : events) {
            String hex = HexFormat.of().formatHex(e.payload());
            assertThat(printed.toLowerCase()).doesNotContain(hex).doesNotContain(hex.substring(0, 16));
            assertThat(printed).doesNotContain(e.id().toString());
        }
    }

    /** @param mariaDbType the column's type and default: MariaDB's MODIFY redefines the whole column */
    private String dropNotNull(String table, String column, String mariaDbType) {
        return switch (database()) {
            case POSTGRES -> "ALTER TABLE " + table + " ALTER COLUMN " + column + " DROP NOT NULL";
            case MARIADB -> "ALTER TABLE " + table + " MODIFY " + column + " " + mariaDbType + " NULL";
            case H2 -> "ALTER TABLE " + table + " ALTER COLUMN " + column + " SET NULL";
        };
    }
}
