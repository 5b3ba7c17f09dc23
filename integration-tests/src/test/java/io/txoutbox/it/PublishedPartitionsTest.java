package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.relay.Relay;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Outcome;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Retention without bloat on PostgreSQL (issue #15): published rows move into {@code <table>_published},
 * partitioned by {@code published_at}, and the purge drops whole partitions. Asserted on the catalogue.
 */
class PublishedPartitionsTest extends DatabaseTest {
    /** A Sunday morning, far from the test's wall clock, so that only the outbox's clock decides. */
    private static final Instant T0 = Instant.parse("2031-05-04T10:15:00Z");

    private static final Duration DAY = Duration.ofDays(1);

    private final List<String> archives = new ArrayList<>();

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    @AfterEach
    void dropArchives() {
        archives.forEach(a -> execute("DROP TABLE IF EXISTS " + a + " CASCADE"));
    }

    /** @return a relay that keeps what it published for seven days, to a broker that accepts everything */
    private static Relay retainingRelay(Outbox outbox) {
        return outbox.relay(new RecordingPublisher())
                .retainPublished(Duration.ofDays(7))
                .build();
    }

    private Outbox partitioned(SettableClock clock, Duration width) {
        Outbox outbox = outboxBuilder().clock(clock).publishedPartitions(width).build();
        archives.add(outbox.table() + "_published");
        return outbox;
    }

    @Test
    void published_rows_land_in_the_partition_of_their_published_at_and_the_table_keeps_none() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = partitioned(clock, DAY);
        String t = outbox.table();
        assertThat(partitions(t))
                .containsExactlyInAnyOrder(t + "_pub_2031050400", t + "_pub_2031050500", t + "_pub_default");
        appendCommitted(outbox, event("order.placed", "1"), event("order.placed", "2"), event("order.paid", "1"));
        try (Relay relay = retainingRelay(outbox)) {
            assertThat(relay.runOnce()).isEqualTo(3);
        }
        assertThat(rows(outbox)).as("the queue table").isZero();
        assertThat(count("SELECT count(*) FROM " + t + "_pub_2031050400")).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM " + t + "_pub_default")).isZero();
        assertThat(count(
                        "SELECT count(*) FROM " + t + "_published WHERE status = 'published' AND published_at = ?",
                        java.sql.Timestamp.from(T0)))
                .isEqualTo(3);
        assertThat(outbox.admin().stats().published()).isEqualTo(3);
        assertThat(outbox.admin().stats().byType().get("order.paid").published())
                .isEqualTo(1);
        assertThat(outbox.admin().stats().pending()).isZero();
    }

    @Test
    void a_purge_drops_partitions_older_than_the_retention_and_keeps_recent_ones() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = partitioned(clock, DAY);
        String t = outbox.table();
        try (Relay relay = retainingRelay(outbox)) {
            appendCommitted(outbox, event("order.placed", "1"), event("order.placed", "2"));
            relay.runOnce();
            clock.advance(DAY);
            appendCommitted(outbox, event("order.placed", "3"));
            relay.runOnce();
        }
        clock.advance(Duration.ofDays(7));
        // Now 2031-05-12T10:15: the cut-off is 05-05T10:15, after 05-04's partition, inside 05-05's.
        outbox.admin().purgePublished(Duration.ofDays(7));
        assertThat(partitions(t))
                .doesNotContain(t + "_pub_2031050400")
                .contains(t + "_pub_2031050500", t + "_pub_2031051200", t + "_pub_2031051300", t + "_pub_default");
        assertThat(count("SELECT count(*) FROM " + t + "_published")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM pg_class WHERE relname = ?", t + "_pub_2031050400"))
                .as("dropped, not detached")
                .isZero();
        assertThat(outbox.admin().stats().published()).isEqualTo(1);
    }

    @Test
    void rows_in_the_default_partition_are_purged_row_by_row() {
        SettableClock clock = new SettableClock(T0);
        Outbox outbox = partitioned(clock, DAY);
        String t = outbox.table();
        appendCommitted(outbox, event("order.placed", "old"), event("order.placed", "newer"));
        try (Relay relay = retainingRelay(outbox)) {
            relay.runOnce();
        }
        // Into periods without a partition (the update moves each row): 20 days ago and 2 days ago.
        execute("UPDATE " + t + "_published SET published_at = published_at - interval '20 days'"
                + " WHERE aggregate_id = 'old'");
        execute("UPDATE " + t + "_published SET published_at = published_at - interval '2 days'"
                + " WHERE aggregate_id = 'newer'");
        assertThat(count("SELECT count(*) FROM " + t + "_pub_default")).isEqualTo(2);

        outbox.admin().purgePublished(Duration.ofDays(7));
        assertThat(count("SELECT count(*) FROM " + t + "_pub_default"))
                .as("the recent row stays")
                .isEqualTo(1);
        assertThat(count(
                        "SELECT count(*) FROM " + t + "_pub_default WHERE published_at < ?",
                        java.sql.Timestamp.from(T0.minus(Duration.ofDays(7)))))
                .isZero();
        assertThat(outbox.admin().stats().published()).isEqualTo(1);
    }

    @Test
    void a_mark_fenced_by_another_owner_moves_nothing() {
        SettableClock clock = new SettableClock(T0);
        Outbox.Builder builder = outboxBuilder().clock(clock).publishedPartitions(DAY);
        try (OutboxStore store = builder.buildStore()) {
            archives.add(store.table() + "_published");
            Outbox outbox = builder.createSchemaIfMissing(false).build();
            OutboxEvent e = appendCommitted(outbox, event("order.placed", "1")).get(0);
            ClaimResult claimed = store.claim("relay-a", 10, 1 << 20, Duration.ofMinutes(1), T0);
            assertThat(claimed.events()).hasSize(1);
            List<Completion> done = List.of(new Completion(e.id(), Outcome.PUBLISHED, null, null));

            assertThat(store.complete("relay-b", done, T0, true)).isEmpty();
            assertThat(rows(outbox)).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM " + store.table() + "_published"))
                    .isZero();

            assertThat(store.complete("relay-a", done, T0, true)).containsExactly(e.id());
            assertThat(rows(outbox)).isZero();
            assertThat(count("SELECT count(*) FROM " + store.table() + "_published WHERE id = ?", e.id()))
                    .isEqualTo(1);
        }
    }

    @Test
    void nothing_is_lost_across_marks_and_purges_while_producers_append_and_periods_turn() throws Exception {
        SettableClock clock = new SettableClock(Instant.parse("2031-05-04T22:50:00Z"));
        Outbox outbox = partitioned(clock, Duration.ofHours(1));
        String t = outbox.table();
        RecordingPublisher broker = new RecordingPublisher();
        Set<UUID> appended = ConcurrentHashMap.newKeySet();
        int threads = 4;
        int transactions = 200;
        AtomicBoolean producing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
        try (Relay first = outbox.relay(broker)
                        .name("first")
                        .batchSize(50)
                        .retainPublished(Duration.ofDays(7))
                        .build();
                Relay second = outbox.relay(broker)
                        .name("second")
                        .batchSize(50)
                        .retainPublished(Duration.ofDays(7))
                        .build()) {
            first.start();
            second.start();
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < threads; p++) {
                int producer = p;
                done.add(pool.submit(() -> {
                    for (int tx = 0; tx < transactions; tx++) {
                        List<OutboxEvent> events = List.of(
                                event("order.placed", producer + "-" + tx + "-a"),
                                event("order.placed", producer + "-" + tx + "-b"));
                        outbox.inTransaction(c -> outbox.appendAll(c, events)).forEach(e -> appended.add(e.id()));
                    }
                    return null;
                }));
            }
            // The clock turns periods while rows are marked, so partitions are added (and the default's
            // rows of a period moved into its partition) under load; a purge of its own runs meanwhile.
            Future<?> turning = pool.submit(() -> {
                while (producing.get()) {
                    clock.advance(Duration.ofMinutes(7));
                    outbox.admin().purgePublished(Duration.ofDays(7));
                    Thread.sleep(20);
                }
                return null;
            });
            for (Future<?> f : done) {
                f.get();
            }
            producing.set(false);
            turning.get();
            int total = threads * transactions * 2;
            assertThat(appended).hasSize(total);
            await().atMost(Duration.ofMinutes(2)).until(() -> rows(outbox) == 0);
        } finally {
            pool.shutdownNow();
        }
        Set<UUID> archived = ids("SELECT id FROM " + t + "_published");
        assertThat(archived).isEqualTo(appended);
        assertThat(count("SELECT count(*) FROM " + t + "_published"))
                .as("no row twice")
                .isEqualTo(appended.size());
        assertThat(broker.publishedIds()).isEqualTo(appended);
        assertThat(outbox.admin().stats().published()).isEqualTo(appended.size());
        assertThat(partitions(t).size())
                .as("periods were added as the clock turned")
                .isGreaterThan(3);

        clock.advance(Duration.ofDays(8));
        outbox.admin().purgePublished(Duration.ofDays(7));
        assertThat(count("SELECT count(*) FROM " + t + "_published")).isZero();
    }

    @Test
    void bad_widths_change_data_capture_and_other_databases_are_refused_naming_the_option() {
        for (Duration bad : List.of(Duration.ofMinutes(30), Duration.ofMinutes(90), Duration.ofDays(32))) {
            assertThatThrownBy(() -> Outbox.builder(dataSource())
                            .publishedPartitions(bad)
                            .validate())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageContaining("Outbox.Builder.publishedPartitions is " + Setting.show(bad))
                    .hasMessageContaining("a whole number of hours between 1 hour and 31 days");
        }
        assertThatThrownBy(() -> Outbox.builder(dataSource())
                        .publishedPartitions(DAY)
                        .changeDataCapture(true)
                        .validate())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("Outbox.Builder.publishedPartitions and Outbox.Builder.changeDataCapture");
        for (Dialect other : List.of(Dialect.MARIADB, Dialect.H2)) {
            assertThatThrownBy(() -> Outbox.builder(dataSource())
                            .dialect(other)
                            .publishedPartitions(DAY)
                            .validate())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageContaining("Outbox.Builder.publishedPartitions needs PostgreSQL")
                    .hasMessageContaining("the " + other.name() + " dialect");
        }
        assertThatThrownBy(() -> Outbox.builder(TestDatabase.MARIADB.dataSource())
                        .table(newTable())
                        .createSchemaIfMissing(true)
                        .publishedPartitions(DAY)
                        .build())
                .as("detected at build")
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("the mariadb dialect");
    }

    @Test
    void the_schema_check_names_a_missing_archive_table_and_the_fix() {
        Outbox plain = newOutbox();
        archives.add(plain.table() + "_published");
        assertThatThrownBy(() -> Outbox.builder(dataSource())
                        .table(plain.table())
                        .publishedPartitions(DAY)
                        .build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("archive table '" + plain.table() + "_published' does not exist")
                .hasMessageContaining("Outbox#createSchema()")
                .hasMessageContaining(
                        "db/migration/txoutbox/postgresql-published-partitions/V5__txoutbox_outbox_published_partitions.sql");
        execute("CREATE TABLE " + plain.table() + "_published (LIKE " + plain.table() + ")");
        assertThatThrownBy(() -> Outbox.builder(dataSource())
                        .table(plain.table())
                        .publishedPartitions(DAY)
                        .build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("is not partitioned by published_at with a default partition");
    }

    @Test
    void the_migration_moves_the_rows_a_0_1_table_retained_and_the_outbox_takes_it() throws Exception {
        String schema = newTable();
        execute("CREATE SCHEMA " + schema);
        try {
            migrate(schema, "/db/migration/txoutbox/postgresql/V1__txoutbox_outbox.sql");
            migrate(schema, "/db/migration/txoutbox/postgresql/V3__txoutbox_outbox_no_commit_notify.sql");
            SettableClock clock = new SettableClock(T0);
            Outbox before = Outbox.builder(dataSource())
                    .table(schema + ".outbox")
                    .clock(clock)
                    .build();
            appendCommitted(before, event("order.placed", "1"), event("order.placed", "2"), event("order.placed", "3"));
            try (Relay relay = before.relay(new RecordingPublisher())
                    .retainPublished(Duration.ofDays(7))
                    .batchSize(2)
                    .build()) {
                relay.runOnce();
            }
            appendCommitted(before, event("order.placed", "pending"));
            assertThat(count("SELECT count(*) FROM " + schema + ".outbox WHERE status = 'published'"))
                    .isEqualTo(2);

            migrate(
                    schema,
                    "/db/migration/txoutbox/postgresql-published-partitions/V5__txoutbox_outbox_published_partitions.sql");
            assertThat(count("SELECT count(*) FROM " + schema + ".outbox"))
                    .as("the pending rows")
                    .isEqualTo(2);
            assertThat(count("SELECT count(*) FROM " + schema + ".outbox_pub_default"))
                    .isEqualTo(2);

            Outbox after = Outbox.builder(dataSource())
                    .table(schema + ".outbox")
                    .clock(clock)
                    .publishedPartitions(DAY)
                    .build();
            try (Relay relay = after.relay(new RecordingPublisher())
                    .retainPublished(Duration.ofDays(7))
                    .build()) {
                assertThat(relay.runOnce()).isEqualTo(2);
            }
            assertThat(after.admin().stats().published()).isEqualTo(4);
            after.admin().purgePublished(Duration.ofDays(7));
            assertThat(count("SELECT count(*) FROM " + schema + ".outbox_pub_2031050400"))
                    .as("the retained rows of the current period moved into its new partition, with the new ones")
                    .isEqualTo(4);
            assertThat(count("SELECT count(*) FROM " + schema + ".outbox_pub_default"))
                    .isZero();
            assertThat(count("SELECT count(*) FROM " + schema + ".outbox")).isZero();
        } finally {
            execute("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    /** @return the names of the archive's partitions, from pg_inherits */
    private List<String> partitions(String table) {
        List<String> names = new ArrayList<>();
        query(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"
                        + table + "_published'::regclass",
                rs -> names.add(rs.getString(1)));
        return names;
    }

    private Set<UUID> ids(String sql) {
        Set<UUID> ids = new HashSet<>();
        query(sql, rs -> ids.add(rs.getObject(1, UUID.class)));
        return ids;
    }

    private interface Row {
        void read(ResultSet rs) throws Exception;
    }

    private void query(String sql, Row row) {
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                row.read(rs);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void migrate(String schema, String script) throws Exception {
        String text;
        try (InputStream in = PublishedPartitionsTest.class.getResourceAsStream(script)) {
            assertThat(in).as(script).isNotNull();
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute("SET search_path TO " + schema);
            for (String sql : text.split(";\\s*\\n\\s*\\n")) {
                st.execute(sql);
            }
            st.execute("RESET search_path");
        }
    }
}
