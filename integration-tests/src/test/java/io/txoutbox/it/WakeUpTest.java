package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 8: wake-ups. With a poll interval of ten minutes, an event can only be published within
 * the test's bound if a wake-up delivered it: a PostgreSQL notification, or the in-JVM after-commit
 * signal. After {@code pg_terminate_backend} of the listening connection, the listener comes back.
 */
class WakeUpTest extends DatabaseTest {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    private static final Duration POLL = Duration.ofMinutes(10);
    private static final Duration BOUND = Duration.ofSeconds(20);

    @Test
    void notify_wakes_the_relay_long_before_the_poll_and_survives_a_terminated_listener() throws Exception {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        List<String> errors = new CopyOnWriteArrayList<>();
        RelayListener listener = new RelayListener() {
            @Override
            public void onError(String relay, String phase, Throwable error) {
                errors.add(phase);
            }
        };
        String appName = "txoutbox-listen:txoutbox_" + outbox.table();
        try (Relay relay =
                outbox.relay(broker).pollInterval(POLL).listener(listener).build()) {
            relay.start();
            await().atMost(BOUND).until(() -> listeners(appName) == 1);

            appendWithoutSignal(outbox, "o-1");
            await().atMost(BOUND).until(() -> broker.publishedCount() == 1);

            long before = pid(appName);
            execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + appName
                    + "'");
            await().atMost(BOUND).until(() -> listeners(appName) == 1 && pid(appName) != before);
            assertThat(errors).contains("listen");

            appendWithoutSignal(outbox, "o-2");
            await().atMost(BOUND).until(() -> broker.publishedCount() == 2);
        }
        assertThat(listeners(appName))
                .as("the listener connection is given back on stop")
                .isZero();
    }

    @Test
    void after_commit_signal_wakes_a_relay_that_does_not_listen() {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).pollInterval(POLL).listen(false).build()) {
            relay.start();
            // inTransaction commits, then signals the relays of this JVM.
            appendCommitted(outbox, event("order.placed", "o-1"));
            await().atMost(BOUND).until(() -> broker.publishedCount() == 1);
        }
    }

    @Test
    void one_notification_per_appending_transaction_not_per_row() throws Exception {
        Outbox outbox = newOutbox();
        try (Connection listening = dataSource().getConnection();
                var st = listening.createStatement()) {
            st.execute("LISTEN txoutbox_" + outbox.table());
            outbox.inTransaction(c -> {
                for (int i = 0; i < 20; i++) {
                    outbox.append(c, event("order.placed", "o-" + i));
                }
                outbox.appendAll(c, List.of(event("a", "1"), event("b", "2")));
                return null;
            });
            var pg = listening.unwrap(org.postgresql.PGConnection.class);
            var first = pg.getNotifications(5_000);
            assertThat(first).hasSize(1);
            var more = pg.getNotifications(200);
            assertThat(more == null ? 0 : more.length).isZero();
        }
    }

    private void appendWithoutSignal(Outbox outbox, String order) throws Exception {
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, event("order.placed", order));
            c.commit();
        }
    }

    private long listeners(String appName) {
        return count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", appName);
    }

    private long pid(String appName) {
        return count("SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = ?", appName);
    }
}
