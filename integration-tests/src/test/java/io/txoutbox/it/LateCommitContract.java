package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A row committed long after its neighbours is still claimed promptly, while the relay never runs out
 * of newer work. A relay that starts its claims where its last claim ended (so as not to walk the index
 * entries of rows it already published) has passed the late row's place long before it commits; its
 * claims from the bottom of the index must still find it, and not only once traffic stops.
 *
 * <p>On PostgreSQL the relay also looks behind its cursor where a committed transaction's signal says its
 * rows sit (in this JVM, and through the notification's payload from another outbox), and over a short
 * range behind its cursor now and then. Whichever claim finds a late row, it is published exactly once,
 * and so is every other row; a notification whose payload is no valid hint is a plain wake-up. How soon a
 * late row is published is measured in the benchmark (LATE), never asserted here.
 */
abstract class LateCommitContract extends DatabaseTest {

    @Test
    void a_row_committed_long_after_newer_rows_were_published_is_claimed_while_traffic_goes_on() throws Exception {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        Set<UUID> appended = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            int n = 0;
            try {
                while (producing.get()) {
                    OutboxEvent e = appendCommitted(outbox, event("order.placed", "steady-" + n++))
                            .get(0);
                    appended.add(e.id());
                    outbox.committed();
                    Thread.sleep(2);
                }
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        });
        try (Relay relay = outbox.relay(broker).batchSize(20).build();
                Connection late = dataSource().getConnection()) {
            late.setAutoCommit(false);
            OutboxEvent lateEvent = outbox.append(late, event("order.placed", "late"));
            relay.start();
            producer.start();
            // The relay claims and publishes well past the late row's place in the index.
            await().atMost(Duration.ofSeconds(60)).until(() -> broker.publishedCount() >= 300);
            assertThat(broker.publishedIds()).doesNotContain(lateEvent.id());

            late.commit();
            outbox.committed();
            int publishedAtCommit = broker.publishedCount();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> broker.publishedIds().contains(lateEvent.id()));
            assertThat(producer.isAlive())
                    .as("the late row was claimed while newer rows kept coming")
                    .isTrue();
            assertThat(broker.publishedCount())
                    .as("newer rows were published after the late commit too")
                    .isGreaterThan(publishedAtCommit);

            producing.set(false);
            producer.join();
            assertThat(producerFailure.get()).isNull();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows(outbox) == 0);
            assertThat(broker.publishedIds()).containsAll(appended).contains(lateEvent.id());
        } finally {
            producing.set(false);
            producer.join();
        }
    }

    @Test
    void a_late_commit_signalled_from_another_outbox_is_published_once_and_so_is_everything_else() throws Exception {
        // MariaDB has no notifications and no cursor to be behind; there a held transaction costs each of these
        // tests about a minute of lock wait, for nothing the foreign-writer case does not cover.
        assumeTrue(database() != TestDatabase.MARIADB);
        Outbox relaySide = newOutbox();
        // Another store on the same table, as in another process: its hint reaches the relay only through the
        // database (the notification's payload on PostgreSQL; elsewhere the relay's own claims).
        try (Outbox producers =
                Outbox.builder(dataSource()).table(relaySide.table()).build()) {
            publishedOnceWhileTrafficGoesOn(
                    producers,
                    relaySide,
                    held -> List.of(producers
                            .append(held, event("order.placed", "late"))
                            .id()),
                    producers::committed,
                    () -> {});
        }
    }

    @Test
    void rows_a_foreign_writer_commits_late_are_published_once() throws Exception {
        boolean postgres = database() == TestDatabase.POSTGRES;
        Outbox.Builder builder = outboxBuilder();
        if (postgres) {
            builder.foreignWriterWakeups(true);
        }
        Outbox outbox = builder.build();
        String insert = "INSERT INTO " + outbox.table()
                + " (id, aggregate_type, aggregate_id, event_type, payload, headers) VALUES (?, 'order', ?,"
                + " 'order.placed', ?, " + (postgres ? "CAST('{}' AS jsonb)" : "'{}'") + ")";
        publishedOnceWhileTrafficGoesOn(
                outbox,
                outbox,
                held -> {
                    // Plain SQL, due at the database's default (the transaction's start on PostgreSQL).
                    List<UUID> ids = new ArrayList<>();
                    try (PreparedStatement ps = held.prepareStatement(insert)) {
                        for (int i = 0; i < 3; i++) {
                            UUID id = UUID.randomUUID();
                            database().bindId(ps, 1, id);
                            ps.setString(2, "foreign-" + i);
                            ps.setBytes(3, "{}".getBytes(StandardCharsets.UTF_8));
                            ps.executeUpdate();
                            ids.add(id);
                        }
                    }
                    return ids;
                },
                () -> {},
                () -> {});
    }

    @Test
    void notifications_with_hostile_payloads_wake_the_relay_and_break_nothing() throws Exception {
        assumeTrue(database() != TestDatabase.MARIADB); // no notifications there; see above
        Outbox outbox = newOutbox();
        List<String> payloads = List.of(
                "garbage",
                "1e999999999",
                "-99999999999.999999999",
                "99999999999999999999",
                "0",
                "-1",
                "1733123456.1234567890123",
                "1733123456.123456; DROP TABLE " + outbox.table(),
                "9".repeat(7_900));
        publishedOnceWhileTrafficGoesOn(
                outbox,
                outbox,
                held -> List.of(
                        outbox.append(held, event("order.placed", "late")).id()),
                outbox::committed,
                () -> {
                    if (database() != TestDatabase.POSTGRES) {
                        return; // no notifications elsewhere
                    }
                    try (Connection c = dataSource().getConnection();
                            PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
                        for (String payload : payloads) {
                            ps.setString(1, outbox.outboxTable().channel());
                            ps.setString(2, payload);
                            ps.execute();
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    /** Writes rows in a transaction held open. */
    @FunctionalInterface
    interface HeldWrite {
        List<UUID> write(Connection held) throws Exception;
    }

    /**
     * Runs steady traffic through a relay of {@code relaySide} until it has published well past the rows a
     * held transaction wrote, then commits that transaction (and runs {@code afterCommit}, its signal), and
     * checks that the late rows and every other row are published, each exactly once, while traffic goes on.
     */
    private void publishedOnceWhileTrafficGoesOn(
            Outbox producers, Outbox relaySide, HeldWrite late, Runnable afterCommit, Runnable beforeCommit)
            throws Exception {
        RecordingPublisher broker = new RecordingPublisher();
        Set<UUID> appended = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            int n = 0;
            try {
                while (producing.get()) {
                    OutboxEvent e = appendCommitted(producers, event("order.placed", "steady-" + n++))
                            .get(0);
                    appended.add(e.id());
                    Thread.sleep(2);
                }
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        });
        try (Relay relay = relaySide.relay(broker).batchSize(20).build();
                Connection held = dataSource().getConnection()) {
            held.setAutoCommit(false);
            List<UUID> lateIds = late.write(held);
            relay.start();
            producer.start();
            // Two batches past the held rows' place: enough for the cursor to be past them, and cheap on every
            // database.
            await().atMost(Duration.ofSeconds(60)).until(() -> broker.publishedCount() >= 40);
            assertThat(broker.publishedIds()).doesNotContainAnyElementsOf(lateIds);

            beforeCommit.run();
            held.commit();
            afterCommit.run();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> broker.publishedIds().containsAll(lateIds));
            assertThat(producer.isAlive())
                    .as("the late rows were claimed while newer rows kept coming")
                    .isTrue();

            producing.set(false);
            producer.join();
            assertThat(producerFailure.get()).isNull();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows(relaySide) == 0);
            assertThat(broker.publishedIds()).containsAll(appended).containsAll(lateIds);
            assertThat(broker.published()).hasSize(appended.size() + lateIds.size());
            assertThat(broker.duplicates()).as("nothing published twice").isEmpty();
        } finally {
            producing.set(false);
            producer.join();
        }
    }
}
