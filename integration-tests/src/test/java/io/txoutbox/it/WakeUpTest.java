package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.WakeupCounters;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Wake-ups off the commit path (PostgreSQL). No appending transaction notifies: appenders wake relays
 * after commit ({@code Outbox#committed}), in this JVM directly and in others with one notification
 * sent on a connection of the outbox's own; rows of other programs wake idle relays through an opt-in
 * trigger, or are found by the adaptive poll.
 *
 * <p>Relays here poll every ten minutes, with the adaptive poll off ({@code minPollInterval} = the poll
 * interval): an event published within the tests' bound was delivered by a wake-up, never by a poll. The appender and the relay use different {@code Outbox} instances on
 * different pools, which is all a relay in another process shares with the appender.
 */
class WakeUpTest extends DatabaseTest {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    private static final Duration POLL = Duration.ofMinutes(10);
    private static final Duration BOUND = Duration.ofSeconds(20);

    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        closeAfter.clear();
    }

    /** A pool of its own: what an appender in another process would have. */
    private HikariDataSource otherProcessPool(String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.POSTGRES.dataSource().getJdbcUrl());
        config.setUsername(TestDatabase.POSTGRES.dataSource().getUsername());
        config.setPoolName(name);
        config.setMaximumPoolSize(6);
        config.setMinimumIdle(0);
        HikariDataSource pool = new HikariDataSource(config);
        closeAfter.add(pool);
        return pool;
    }

    private <T extends AutoCloseable> T closing(T resource) {
        closeAfter.add(resource);
        return resource;
    }

    // ------------------------------------------------------------------ acceptance 1

    @Test
    void the_default_schema_has_no_trigger_and_the_appending_transaction_sends_no_notification() throws Exception {
        Outbox outbox = closing(newOutbox());
        assertThat(count(
                        "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(?) AND NOT tgisinternal",
                        outbox.table()))
                .as("user triggers on the outbox table")
                .isZero();
        assertThat(count("SELECT count(*) FROM pg_proc WHERE proname = ?", outbox.table() + "_notify"))
                .as("the notify function of txoutbox 0.1")
                .isZero();

        try (Connection listening = dataSource().getConnection();
                Statement st = listening.createStatement()) {
            st.execute("LISTEN txoutbox_" + outbox.table());
            List<PGNotification> received = new ArrayList<>();
            // The appending connection stays checked out, so the notifier cannot borrow the same backend.
            try (Connection c = dataSource().getConnection()) {
                c.setAutoCommit(false);
                long appenderPid = backendPid(c);
                for (int i = 0; i < 20; i++) {
                    outbox.append(c, event("order.placed", "o-" + i));
                }
                outbox.appendAll(c, List.of(event("a", "1"), event("b", "2")));
                c.commit();
                outbox.committed();
                // Notifications arrive in commit order: one sent by the appending transaction would come first.
                PGConnection pg = listening.unwrap(PGConnection.class);
                await().atMost(BOUND).until(() -> {
                    PGNotification[] got = pg.getNotifications(100);
                    if (got != null) {
                        received.addAll(List.of(got));
                    }
                    return !received.isEmpty();
                });
                assertThat(received)
                        .as("notifications from the appending backend")
                        .noneMatch(n -> n.getPID() == appenderPid);
            }
            assertThat(received).allMatch(n -> n.getName().equals("txoutbox_" + outbox.table()));
        }
    }

    @Test
    void create_schema_removes_the_always_notify_trigger_of_older_tables() {
        Outbox outbox = closing(newOutbox());
        String table = outbox.table();
        execute("CREATE FUNCTION " + table + "_notify() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " PERFORM pg_notify('txoutbox_" + table + "', ''); RETURN NULL; END $$");
        execute("CREATE TRIGGER " + table + "_notify AFTER INSERT ON " + table + " FOR EACH STATEMENT EXECUTE FUNCTION "
                + table + "_notify()");
        assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(?) AND NOT tgisinternal", table))
                .isEqualTo(1);
        outbox.createSchema();
        assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(?) AND NOT tgisinternal", table))
                .isZero();
        assertThat(count("SELECT count(*) FROM pg_proc WHERE proname = ?", table + "_notify"))
                .isZero();
    }

    // ------------------------------------------------------------------ acceptance 2

    @Test
    void a_relay_of_another_outbox_on_another_pool_is_woken_by_the_after_commit_notification() {
        Outbox relaySide = closing(newOutbox());
        Outbox appender = closing(Outbox.builder(otherProcessPool("appender"))
                .table(relaySide.table())
                .build());
        RecordingPublisher broker = new RecordingPublisher();
        startListeningRelay(relaySide, broker);

        OutboxEvent first =
                appendCommitted(appender, event("order.placed", "o-1")).get(0);
        await().atMost(BOUND).until(() -> broker.publishedIds().contains(first.id()));
        OutboxEvent second =
                appendCommitted(appender, event("order.placed", "o-2")).get(0);
        await().atMost(BOUND).until(() -> broker.publishedIds().contains(second.id()));
        WakeupCounters counters = appender.wakeupCounters();
        assertThat(counters.sent()).isGreaterThanOrEqualTo(2);
        assertThat(counters.failures()).isZero();
    }

    @Test
    void after_commit_signal_wakes_a_relay_of_the_same_outbox_that_does_not_listen() {
        Outbox outbox = closing(newOutbox());
        RecordingPublisher broker = new RecordingPublisher();
        Relay relay = closing(outbox.relay(broker)
                .pollInterval(POLL)
                .minPollInterval(POLL)
                .listen(false)
                .build());
        relay.start();
        // inTransaction commits, then calls committed(): the relays of this outbox wake at once.
        appendCommitted(outbox, event("order.placed", "o-1"));
        await().atMost(BOUND).until(() -> broker.publishedCount() == 1);
    }

    @Test
    void commits_in_quick_succession_share_notifications() throws Exception {
        Outbox outbox =
                closing(outboxBuilder().notifyWindow(Duration.ofMillis(200)).build());
        for (int i = 0; i < 50; i++) {
            appendCommitted(outbox, event("order.placed", "o-" + i));
        }
        await().atMost(BOUND).until(() -> outbox.wakeupCounters().requested() == 50);
        await().atMost(BOUND).until(() -> outbox.wakeupCounters().sent() >= 1);
        assertThat(outbox.wakeupCounters().sent())
                .as("50 commits well within a few 200 ms windows")
                .isLessThan(50);
    }

    // ------------------------------------------------------------------ acceptance 3

    @Test
    void with_foreign_writer_wakeups_a_row_inserted_by_psql_wakes_an_idle_relay() throws Exception {
        Outbox outbox = closing(outboxBuilder().foreignWriterWakeups(true).build());
        assertThat(count(
                        "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(?) AND tgname = ?",
                        outbox.table(),
                        outbox.table() + "_wake"))
                .isEqualTo(1);
        RecordingPublisher broker = new RecordingPublisher();
        Relay relay = closing(
                outbox.relay(broker).pollInterval(POLL).minPollInterval(POLL).build());
        relay.start();
        awaitIdleAnnounced(outbox);

        UUID id = UUID.randomUUID();
        psql("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES ('" + id
                + "', 'order', 'o-7', 'order.placed', convert_to('{\"total\":12}', 'UTF8'))");
        await().atMost(BOUND).until(() -> broker.publishedIds().contains(id));
    }

    @Test
    void without_foreign_writer_wakeups_a_row_inserted_by_psql_is_published_within_the_poll_interval()
            throws Exception {
        Duration poll = Duration.ofSeconds(3);
        Outbox outbox = closing(newOutbox());
        RecordingPublisher broker = new RecordingPublisher();
        Relay relay = closing(outbox.relay(broker).pollInterval(poll).build());
        relay.start();
        UUID id = UUID.randomUUID();
        psql("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES ('" + id
                + "', 'order', 'o-8', 'order.placed', convert_to('{}', 'UTF8'))");
        await().atMost(poll.plusSeconds(2)).until(() -> broker.publishedIds().contains(id));
    }

    // ------------------------------------------------------------------ acceptance 4

    @Test
    void terminating_the_notifier_connection_never_fails_a_commit_and_wake_ups_resume() throws Exception {
        Outbox relaySide = closing(newOutbox());
        // A window long enough that back-to-back commits keep the notifier's connection borrowed.
        Outbox appender = closing(Outbox.builder(otherProcessPool("appender"))
                .table(relaySide.table())
                .notifyWindow(Duration.ofMillis(50))
                .build());
        RecordingPublisher broker = new RecordingPublisher();
        startListeningRelay(relaySide, broker);
        String notifierName = "txoutbox-notify:txoutbox_" + relaySide.table();

        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        AtomicInteger committed = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Set<UUID> ids = ConcurrentHashMap.newKeySet();
        // Back-to-back commits: the notifier keeps its connection while requests keep coming.
        Thread producer = new Thread(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    ids.add(appendCommitted(appender, event("order.placed", "o-" + i))
                            .get(0)
                            .id());
                    committed.incrementAndGet();
                }
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        });
        producer.start();
        Outbox store = appender;
        try {
            for (int kill = 0; kill < 3; kill++) {
                long before = store.wakeupCounters().failures();
                await().atMost(BOUND)
                        .pollInterval(Duration.ofMillis(5))
                        .until(() ->
                                count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", notifierName)
                                        > 0);
                execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
                        + notifierName + "'");
                await().atMost(BOUND).until(() -> store.wakeupCounters().failures() > before);
            }
        } finally {
            stop.set(true);
            producer.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(producerFailure.get()).as("a producer's commit failed").isNull();
        assertThat(committed.get()).isPositive();
        assertThat(store.wakeupCounters().failures()).isGreaterThanOrEqualTo(3);
        await().atMost(BOUND).until(() -> broker.publishedIds().containsAll(ids));

        OutboxEvent after =
                appendCommitted(appender, event("order.placed", "late")).get(0);
        await().atMost(BOUND).until(() -> broker.publishedIds().contains(after.id()));
    }

    // ------------------------------------------------------------------ acceptance 5

    /**
     * Each event is appended only after the previous one was published, after a random pause of up to a
     * few milliseconds: so every append races a relay that is just going back to sleep, and a lost
     * wake-up is never rescued by the next append's. One lost wake-up would leave its event for the ten
     * minute poll, far past the bound.
     */
    @Test
    void thousands_of_idle_and_wake_cycles_with_appenders_racing_the_relay_never_wait_for_the_poll() throws Exception {
        Outbox relaySide = closing(newOutbox());
        Outbox appender = closing(Outbox.builder(otherProcessPool("appender"))
                .table(relaySide.table())
                .build());
        RecordingPublisher broker = new RecordingPublisher();
        AtomicLong batches = new AtomicLong();
        startCountingBatches(relaySide, broker, batches);
        awaitListening(relaySide);
        int events = 2_000;
        for (int i = 0; i < events; i++) {
            UUID id = appendCommitted(appender, event("order.placed", "o-" + i))
                    .get(0)
                    .id();
            awaitPublished(broker, id, i);
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(3)));
        }
        assertOneWakeCyclePerEvent(batches, events);
    }

    /** The same race against the idle announcement, with rows inserted by plain JDBC under the trigger. */
    @Test
    void thousands_of_idle_and_wake_cycles_with_foreign_writers_racing_the_idle_announcement_never_wait_for_the_poll()
            throws Exception {
        Outbox outbox = closing(outboxBuilder().foreignWriterWakeups(true).build());
        RecordingPublisher broker = new RecordingPublisher();
        AtomicLong batches = new AtomicLong();
        startCountingBatches(outbox, broker, batches);
        awaitIdleAnnounced(outbox);
        int events = 1_000;
        // Each pause lands in the relay's mark, its next claim, its announcement (every 10 ms) or its sleep.
        insertEachAfterThePreviousWasPublished(outbox.table(), events, broker, 15);
        assertOneWakeCyclePerEvent(batches, events);
    }

    /**
     * The writer checks for idle relays at the start of its commit; here another deferred trigger, named
     * to run after txoutbox's, makes each commit take 30 ms more before it is visible, and the relay's
     * publisher takes 15 ms, so that relays go idle (announce, last look) while writers that checked
     * before are still committing. The announcement waits for those commits; without that wait a row
     * would be left for the poll.
     */
    @Test
    void a_writer_that_checked_before_the_announcement_and_commits_after_the_last_look_still_wakes_the_relay()
            throws Exception {
        Outbox outbox = closing(outboxBuilder().foreignWriterWakeups(true).build());
        String table = outbox.table();
        execute("CREATE FUNCTION " + table + "_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " PERFORM pg_sleep(0.03); RETURN NULL; END $$");
        execute("CREATE CONSTRAINT TRIGGER " + table + "_wake_zz_slow AFTER INSERT ON " + table
                + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION " + table + "_slow()");
        try {
            RecordingPublisher broker = new RecordingPublisher();
            Publisher slow = batch -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(15));
                return broker.publish(batch);
            };
            Relay relay = closing(
                    outbox.relay(slow).pollInterval(POLL).minPollInterval(POLL).build());
            relay.start();
            awaitIdleAnnounced(outbox);
            insertEachAfterThePreviousWasPublished(table, 200, broker, 20);
        } finally {
            execute("DROP TRIGGER IF EXISTS " + table + "_wake_zz_slow ON " + table);
            execute("DROP FUNCTION IF EXISTS " + table + "_slow()");
        }
    }

    /** A bounded wait for one event, far shorter than the poll interval: only a wake-up can meet it. */
    private static void awaitPublished(RecordingPublisher broker, UUID id, int index) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!broker.publishedIds().contains(id)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("event " + index + " was not published within " + BOUND
                        + ": a wake-up was lost and it waits for the poll (" + POLL + ")");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Starts a relay on {@code outbox} that polls only every {@code POLL} and counts its batches. */
    private Relay startCountingBatches(Outbox outbox, Publisher broker, AtomicLong batches) {
        Relay relay = closing(outbox.relay(broker)
                .pollInterval(POLL)
                .minPollInterval(POLL)
                .listener(countingBatches(batches))
                .build());
        relay.start();
        return relay;
    }

    /** Each event woke the relay for a batch of its own: none was left for the poll or joined another. */
    private static void assertOneWakeCyclePerEvent(AtomicLong batches, int events) {
        // The last batch is reported after its mark, which may still be running when its event is published.
        await().atMost(BOUND).until(() -> batches.get() >= events);
        assertThat(batches.get()).as("wake cycles").isEqualTo(events);
    }

    /**
     * Inserts {@code events} rows by plain JDBC on a pool of another process, as a writer that is not
     * txoutbox does, each after the previous one was published and a random pause of up to {@code
     * maxPauseMillis}.
     */
    private void insertEachAfterThePreviousWasPublished(
            String table, int events, RecordingPublisher broker, int maxPauseMillis) throws Exception {
        try (Connection c = otherProcessPool("writer").getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                        + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES (?, 'order', ?,"
                        + " 'order.placed', ?)")) {
            for (int i = 0; i < events; i++) {
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setString(2, "o-" + i);
                ps.setBytes(3, "{}".getBytes(StandardCharsets.UTF_8));
                ps.executeUpdate();
                awaitPublished(broker, id, i);
                LockSupport.parkNanos(
                        ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(maxPauseMillis)));
            }
        }
    }

    private static RelayListener countingBatches(AtomicLong batches) {
        return new RelayListener() {
            @Override
            public void onBatch(BatchReport report) {
                batches.incrementAndGet();
            }
        };
    }

    /** Starts a relay of the outbox that polls every {@link #POLL}, and waits until it listens. */
    private void startListeningRelay(Outbox outbox, RecordingPublisher broker) {
        Relay relay = closing(
                outbox.relay(broker).pollInterval(POLL).minPollInterval(POLL).build());
        relay.start();
        awaitListening(outbox);
    }

    private void awaitListening(Outbox outbox) {
        String appName = "txoutbox-listen:txoutbox_" + outbox.table();
        await().atMost(BOUND)
                .until(() -> count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", appName) == 1);
    }

    /** Waits until an idle relay holds the table's idle lock (announced to the foreign-writer trigger). */
    private void awaitIdleAnnounced(Outbox outbox) {
        awaitListening(outbox);
        CRC32 crc = new CRC32();
        crc.update(("txoutbox_" + outbox.table()).getBytes(StandardCharsets.UTF_8));
        await().atMost(BOUND)
                .until(() -> count(
                                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = ?::oid"
                                        + " AND objid = ?::oid AND mode = 'ShareLock' AND granted",
                                (long) 0x54584F49,
                                crc.getValue())
                        > 0);
    }

    private static long backendPid(Connection c) throws Exception {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Runs one statement through the real psql client, as a program that is not txoutbox would. */
    private static void psql(String sql) throws IOException, InterruptedException {
        String url = TestDatabase.POSTGRES.dataSource().getJdbcUrl();
        String database = url.substring(url.lastIndexOf('/') + 1);
        Process p = new ProcessBuilder(
                        "psql",
                        "-h",
                        "localhost",
                        "-U",
                        TestDatabase.POSTGRES.dataSource().getUsername(),
                        "-d",
                        database,
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-c",
                        sql)
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("psql: " + output).isZero();
    }
}
