package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxTable;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.Outcome;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store on an in-memory H2: the claim-and-mark path (the short-transaction strategies H2 and
 * MariaDB use), the operations and the schema check, each against real SQL. PostgreSQL's one-statement
 * strategies run in the contracts of integration-tests.
 */
class JdbcOutboxStoreTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofHours(1);

    private final H2Database h2 = new H2Database();
    private final List<JdbcOutboxStore> stores = new ArrayList<>();

    @AfterEach
    void drop() {
        stores.forEach(JdbcOutboxStore::close);
        h2.drop();
    }

    /** A store on a table that is neither created nor checked. */
    private JdbcOutboxStore unchecked(OutboxTable table, DeadHeadPolicy ordered, boolean changeDataCapture) {
        JdbcOutboxStore store = new JdbcOutboxStore(
                h2.dataSource,
                table,
                H2Dialect.INSTANCE,
                ordered,
                new WakeupOptions(false, Duration.ZERO, false),
                null,
                changeDataCapture,
                null,
                null,
                null);
        stores.add(store);
        return store;
    }

    private JdbcOutboxStore store(OutboxTable table, DeadHeadPolicy ordered, boolean changeDataCapture) {
        JdbcOutboxStore store = unchecked(table, ordered, changeDataCapture);
        store.createSchema();
        store.validateSchema();
        return store;
    }

    private JdbcOutboxStore store() {
        return store(OutboxTable.of("outbox"), null, false);
    }

    private static OutboxEvent event(String type, String aggregateId, int payloadBytes) {
        return OutboxEvent.builder(type)
                .aggregate("order", aggregateId)
                .payload(new byte[payloadBytes], "application/octet-stream")
                .build();
    }

    private static OutboxEvent event(String type) {
        return OutboxEvent.builder(type)
                .aggregate("order", "o-1")
                .jsonPayload("{}")
                .build();
    }

    private void append(JdbcOutboxStore store, Instant at, OutboxEvent... events) {
        try (Connection c = h2.dataSource.getConnection()) {
            c.setAutoCommit(false);
            store.append(c, List.of(events), at);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<UUID> ids(ClaimResult claim) {
        return claim.events().stream().map(ClaimedEvent::id).toList();
    }

    private static Completion published(UUID id) {
        return new Completion(id, Outcome.PUBLISHED, null, null);
    }

    // ---- claim ------------------------------------------------------------------------------------

    @Test
    void a_claim_leases_due_rows_oldest_first_counts_the_attempt_and_leaves_rows_not_yet_due() {
        JdbcOutboxStore store = store();
        OutboxEvent first = event("a");
        OutboxEvent second = event("b");
        OutboxEvent later = OutboxEvent.builder("c")
                .aggregate("order", "o-1")
                .jsonPayload("{}")
                .delay(Duration.ofMinutes(5))
                .build();
        append(store, T0, first, second, later);
        ClaimResult claim = store.claim("me", 10, LEASE, T0);
        assertThat(ids(claim)).containsExactly(first.id(), second.id());
        assertThat(claim.events()).allSatisfy(e -> assertThat(e.attempt()).isEqualTo(1));
        assertThat(h2.count("SELECT count(*) FROM outbox WHERE lease_owner = 'me' AND attempts = 1"))
                .isEqualTo(2);
        assertThat(ids(store.claim("me", 10, LEASE, T0.plus(Duration.ofMinutes(5)))))
                .as("due once its delay passed")
                .containsExactly(later.id());
    }

    @Test
    void a_claim_takes_rows_while_the_payloads_before_them_stay_under_the_byte_budget() {
        JdbcOutboxStore store = store();
        OutboxEvent big = event("big", "o-1", 6_000);
        OutboxEvent mid = event("mid", "o-2", 3_000);
        OutboxEvent small = event("small", "o-3", 10);
        append(store, T0, big, mid, small);
        assertThat(ids(store.claim("me", 10, 5_000, LEASE, T0)))
                .as("the first row always, even over the budget")
                .containsExactly(big.id());
        assertThat(ids(store.claim("me", 10, 5_000, LEASE, T0))).containsExactly(mid.id(), small.id());
        assertThat(h2.count("SELECT count(*) FROM outbox WHERE lease_owner IS NULL"))
                .isZero();
        assertThatThrownBy(() -> store.claim("me", 10, 0, LEASE, T0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_row_leased_by_another_owner_is_skipped_until_its_lease_has_expired_on_the_database_clock() {
        JdbcOutboxStore store = store();
        OutboxEvent e = event("a");
        append(store, T0, e);
        assertThat(ids(store.claim("them", 10, LEASE, T0))).containsExactly(e.id());
        assertThat(store.claim("me", 10, LEASE, T0).events()).isEmpty();
        h2.execute("UPDATE outbox SET lease_expires_at = DATEADD(SECOND, -1, CURRENT_TIMESTAMP)");
        ClaimResult taken = store.claim("me", 10, LEASE, T0);
        assertThat(ids(taken)).containsExactly(e.id());
        assertThat(taken.events().get(0).attempt()).isEqualTo(2);
    }

    @Test
    void claimed_columns_are_read_by_name_whatever_the_column_mapping() {
        JdbcOutboxStore store = store(OutboxTable.of("dbz").withColumns(OutboxTable.Columns.DEBEZIUM), null, false);
        OutboxEvent e = OutboxEvent.builder("order.placed")
                .aggregate("order", "o-7")
                .jsonPayload("{\"total\":12}")
                .header("correlation-id", "c-1")
                .tenant("acme")
                .destination("orders")
                .maxAttempts(5)
                .build();
        append(store, T0, e);
        ClaimedEvent claimed = store.claim("me", 10, LEASE, T0).events().get(0);
        assertThat(claimed.id()).isEqualTo(e.id());
        assertThat(claimed.aggregateType()).isEqualTo("order");
        assertThat(claimed.aggregateId()).isEqualTo("o-7");
        assertThat(claimed.eventType()).isEqualTo("order.placed");
        assertThat(claimed.payloadAsString()).isEqualTo("{\"total\":12}");
        assertThat(claimed.contentType()).isEqualTo("application/json");
        assertThat(claimed.headers()).containsEntry("correlation-id", "c-1");
        assertThat(claimed.tenantId()).isEqualTo("acme");
        assertThat(claimed.destination()).isEqualTo("orders");
        assertThat(claimed.createdAt()).isEqualTo(T0);
        assertThat(claimed.maxAttempts()).isEqualTo(5);
        assertThat(h2.count("SELECT count(*) FROM dbz WHERE aggregateid = 'o-7' AND type = 'order.placed'"))
                .isEqualTo(1);
    }

    @Test
    void an_unreadable_row_comes_back_with_its_reason_while_the_rest_of_the_batch_flows() {
        JdbcOutboxStore store = store();
        UUID bad = h2.insertRaw("outbox", "order.placed", "[1, 2]");
        UUID good = h2.insertRaw("outbox", "order.placed", "{}");
        ClaimResult claim = store.claim("me", 10, LEASE, T0);
        assertThat(ids(claim)).containsExactly(good);
        assertThat(claim.unreadable()).containsOnlyKeys(bad);
        assertThat(claim.unreadable().get(bad)).isEqualTo("unreadable row: headers is not a JSON object");
        assertThat(claim.size()).isEqualTo(2);
    }

    // ---- mark -------------------------------------------------------------------------------------

    @Test
    void a_mark_is_fenced_by_the_owner_and_deletes_published_rows() {
        JdbcOutboxStore store = store();
        OutboxEvent mine = event("a");
        OutboxEvent theirs = event("b");
        append(store, T0, mine, theirs);
        store.claim("me", 10, LEASE, T0);
        h2.execute("UPDATE outbox SET lease_owner = 'them' WHERE id = '" + theirs.id() + "'");
        Set<UUID> marked = store.complete("me", List.of(published(mine.id()), published(theirs.id())), T0, false);
        assertThat(marked).containsExactly(mine.id());
        assertThat(h2.text("SELECT lease_owner FROM outbox")).isEqualTo("them");
        assertThat(h2.count("SELECT count(*) FROM outbox")).isEqualTo(1);
    }

    @Test
    void a_retaining_mark_keeps_published_rows_with_their_publish_time_for_the_purge() {
        JdbcOutboxStore store = store();
        OutboxEvent e = event("a");
        append(store, T0, e);
        store.claim("me", 10, LEASE, T0);
        assertThat(store.complete("me", List.of(published(e.id())), T0.plusSeconds(1), true))
                .containsExactly(e.id());
        assertThat(h2.text("SELECT status FROM outbox")).isEqualTo("published");
        assertThat(store.purgePublished(T0, 10))
                .as("not older than the cut-off")
                .isZero();
        assertThat(store.purgePublished(T0.plusSeconds(2), 10)).isEqualTo(1);
    }

    @Test
    void a_retry_mark_keeps_the_row_pending_with_its_due_time_and_error_and_a_dead_mark_makes_it_dead() {
        JdbcOutboxStore store = store();
        OutboxEvent retried = event("a");
        OutboxEvent dead = event("b");
        append(store, T0, retried, dead);
        store.claim("me", 10, LEASE, T0);
        Instant due = T0.plus(Duration.ofMinutes(3));
        store.complete(
                "me",
                List.of(
                        new Completion(retried.id(), Outcome.RETRY, due, "broker down"),
                        new Completion(dead.id(), Outcome.DEAD, null, "x".repeat(5_000))),
                T0,
                false);
        assertThat(h2.text("SELECT status || ':' || last_error FROM outbox WHERE id = ?", retried.id()))
                .isEqualTo("pending:broker down");
        assertThat(h2.text("SELECT status FROM outbox WHERE id = ?", dead.id())).isEqualTo("dead");
        assertThat(h2.text("SELECT last_error FROM outbox WHERE id = ?", dead.id()))
                .as("cut to what last_error keeps")
                .hasSize(Marks.MAX_ERROR_CHARS)
                .endsWith("…");
        assertThat(store.nextDueAt()).contains(due);
        assertThat(store.claim("me", 10, LEASE, T0).events()).as("not due yet").isEmpty();
    }

    @Test
    void a_lease_is_extended_only_for_its_owner_and_released_without_counting_the_attempt() {
        JdbcOutboxStore store = store();
        OutboxEvent e = event("a");
        append(store, T0, e);
        store.claim("me", 10, Duration.ofSeconds(5), T0);
        assertThat(store.extendLease("them", List.of(e.id()), LEASE)).isZero();
        assertThat(store.extendLease("me", List.of(e.id()), LEASE)).isEqualTo(1);
        assertThat(h2.count(
                        "SELECT count(*) FROM outbox WHERE lease_expires_at > DATEADD(MINUTE, 30, CURRENT_TIMESTAMP)"))
                .isEqualTo(1);
        assertThat(store.releaseLeases("them")).isZero();
        assertThat(store.releaseLeases("me")).isEqualTo(1);
        assertThat(h2.text("SELECT attempts FROM outbox")).isEqualTo("0");
        assertThat(h2.text("SELECT lease_owner FROM outbox")).isNull();
    }

    // ---- ordered mode -----------------------------------------------------------------------------

    @Test
    void in_ordered_mode_only_the_oldest_unfinished_event_of_an_aggregate_is_claimed_or_due() {
        JdbcOutboxStore store = store(OutboxTable.of("outbox"), DeadHeadPolicy.BLOCK, false);
        OutboxEvent head = event("first", "o-1", 1);
        OutboxEvent next = event("second", "o-1", 1);
        OutboxEvent other = event("other", "o-2", 1);
        append(store, T0, head, next, other);
        assertThat(ids(store.claim("me", 10, LEASE, T0))).containsExactlyInAnyOrder(head.id(), other.id());
        Instant retryAt = T0.plus(Duration.ofMinutes(1));
        store.complete("me", List.of(new Completion(head.id(), Outcome.RETRY, retryAt, "later")), T0, false);
        assertThat(store.nextDueAt())
                .as("the head's retry, not its successor's time")
                .contains(retryAt);
        store.complete("me", List.of(new Completion(other.id(), Outcome.DEAD, null, "bad")), T0, false);
        h2.execute("UPDATE outbox SET status = 'dead', lease_owner = NULL WHERE id = '" + head.id() + "'");
        OutboxStats stats = store.stats(T0);
        assertThat(stats.blockedAggregates()).isEqualTo(1);
        assertThat(stats.blockedEvents()).isEqualTo(1);
        assertThat(store.listDead(DeadQuery.first(10)))
                .filteredOn(d -> d.id().equals(head.id()))
                .singleElement()
                .satisfies(d -> assertThat(d.heldBack()).isEqualTo(1));
    }

    // ---- operations -------------------------------------------------------------------------------

    @Test
    void stats_count_each_state_by_type_and_the_oldest_pending_age() {
        JdbcOutboxStore store = store();
        OutboxEvent a = event("a");
        OutboxEvent b = event("b");
        OutboxEvent c = event("b");
        append(store, T0, a, b, c);
        store.claim("me", 1, LEASE, T0);
        store.complete("me", List.of(new Completion(a.id(), Outcome.DEAD, null, "bad")), T0, false);
        store.claim("me", 1, LEASE, T0);
        OutboxStats stats = store.stats(T0.plusSeconds(30));
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.inFlight()).isEqualTo(1);
        assertThat(stats.pending()).isEqualTo(1);
        assertThat(stats.byType().get("b").pending()).isEqualTo(1);
        assertThat(stats.byType().get("a").dead()).isEqualTo(1);
        assertThat(stats.oldestPendingAge()).isEqualTo(Duration.ofSeconds(30));
        assertThat(stats.changeDataCapture()).isFalse();
    }

    @Test
    void dead_events_page_by_id_filter_by_type_and_are_revived_or_deleted_by_selector() {
        JdbcOutboxStore store = store();
        List<OutboxEvent> events = List.of(event("email.sent"), event("email.sent"), event("sms.sent"));
        append(store, T0, events.toArray(OutboxEvent[]::new));
        store.claim("me", 10, LEASE, T0);
        store.complete(
                "me",
                events.stream()
                        .map(e -> new Completion(e.id(), Outcome.DEAD, null, "bad"))
                        .toList(),
                T0,
                false);
        List<DeadEvent> first = store.listDead(DeadQuery.first(2));
        assertThat(first).hasSize(2);
        List<DeadEvent> rest =
                store.listDead(DeadQuery.first(2).after(first.get(1).id()));
        assertThat(rest).hasSize(1);
        assertThat(store.listDead(DeadQuery.first(10).ofType("sms.sent")))
                .singleElement()
                .satisfies(d -> assertThat(d.lastError()).isEqualTo("bad"));
        assertThat(store.revive(DeadSelector.type("email.sent"), T0)).isEqualTo(2);
        assertThat(h2.count("SELECT count(*) FROM outbox WHERE status = 'pending' AND attempts = 0"))
                .isEqualTo(2);
        assertThat(store.deleteDead(DeadSelector.ids(List.of()))).isZero();
        assertThat(store.deleteDead(DeadSelector.all())).isEqualTo(1);
    }

    @Test
    void the_purge_deletes_retained_rows_in_small_batches() {
        JdbcOutboxStore store = store();
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.add(event("a"));
        }
        append(store, T0, events.toArray(OutboxEvent[]::new));
        store.claim("me", 10, LEASE, T0);
        store.complete("me", events.stream().map(e -> published(e.id())).toList(), T0, true);
        assertThat(store.purgePublished(T0.plusSeconds(1), 2)).isEqualTo(5);
        assertThat(h2.count("SELECT count(*) FROM outbox")).isZero();
    }

    @Test
    void in_change_data_capture_mode_append_leaves_no_row_behind() {
        JdbcOutboxStore store = store(OutboxTable.of("cdc"), null, true);
        append(store, T0, event("a"), event("b"));
        assertThat(h2.count("SELECT count(*) FROM cdc")).isZero();
        assertThat(store.stats(T0).changeDataCapture()).isTrue();
    }

    @Test
    void append_writes_nothing_for_an_empty_list_and_never_commits() throws SQLException {
        JdbcOutboxStore store = store();
        try (Connection c = h2.dataSource.getConnection()) {
            c.setAutoCommit(false);
            store.append(c, List.of(), T0);
            store.append(c, List.of(event("a")), T0);
            c.rollback();
        }
        assertThat(h2.count("SELECT count(*) FROM outbox")).isZero();
    }

    // ---- schema -----------------------------------------------------------------------------------

    @Test
    void a_missing_table_fails_the_check_naming_the_ways_to_create_it() {
        JdbcOutboxStore store = unchecked(OutboxTable.of("missing"), null, false);
        assertThatThrownBy(store::validateSchema)
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("the outbox table 'missing' does not exist")
                .hasMessageContaining("db/migration/txoutbox/h2/V1__txoutbox_outbox.sql");
    }

    @Test
    void a_column_that_allows_null_fails_the_check_with_the_statement_that_fixes_it() {
        store();
        h2.execute("ALTER TABLE outbox ALTER COLUMN content_type SET NULL");
        JdbcOutboxStore check = unchecked(OutboxTable.of("outbox"), null, false);
        assertThatThrownBy(check::validateSchema)
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("column 'content_type' allows NULL")
                .hasMessageContaining("ALTER TABLE outbox ALTER COLUMN content_type SET NOT NULL");
    }

    @Test
    void a_column_of_the_wrong_type_fails_the_check_naming_the_types_expected() {
        h2.execute("CREATE TABLE odd (id UUID PRIMARY KEY, seq BIGINT, aggregate_type VARCHAR(255),"
                + " aggregate_id VARCHAR(255), event_type VARCHAR(255), payload VARCHAR(255))");
        JdbcOutboxStore check = unchecked(OutboxTable.of("odd"), null, false);
        assertThatThrownBy(check::validateSchema)
                .hasMessageContaining(
                        "column 'payload' is character varying; expected [binary large object," + " binary varying]")
                .hasMessageContaining("column 'lease_owner' is missing");
    }

    @Test
    void creating_the_schema_twice_is_harmless() {
        JdbcOutboxStore store = store();
        store.createSchema();
        store.validateSchema();
        append(store, T0, event("a"));
        assertThat(h2.text("SELECT content_type FROM outbox")).isEqualTo("application/json");
    }

    @Test
    void published_partitions_are_refused_at_build_on_a_database_without_them_naming_the_option_and_dialect() {
        assertThatThrownBy(() -> io.txoutbox.Outbox.builder(h2.dataSource)
                        .createSchemaIfMissing(true)
                        .publishedPartitions(Duration.ofDays(1))
                        .build())
                .isInstanceOf(io.txoutbox.OutboxValidationException.class)
                .hasMessageStartingWith("Outbox.Builder.publishedPartitions needs PostgreSQL's declarative"
                        + " partitions; the h2 dialect keeps published rows in the table");
    }
}
