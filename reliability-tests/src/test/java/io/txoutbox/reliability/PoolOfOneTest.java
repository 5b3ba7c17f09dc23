package io.txoutbox.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A HikariCP pool of one connection shared by the application and its relay. Without {@code LISTEN}
 * the relay borrows the connection per statement and everything flows. With {@code LISTEN} the
 * listening connection is held for as long as the relay runs: it is the only one, so the relay's claims
 * and the application's own transactions wait for the pool's timeout and fail, and nothing is
 * published until the relay stops.
 */
class PoolOfOneTest extends OutboxTableTest {

    private static HikariDataSource poolOfOne(String name) {
        HikariDataSource pool = Pg.pool(name, 1);
        pool.setConnectionTimeout(1_000);
        return pool;
    }

    @Test
    void a_relay_that_does_not_listen_shares_a_pool_of_one_with_the_application_and_publishes_everything() {
        String table = outboxBuilder().build().table();
        try (HikariDataSource pool = poolOfOne("pool-of-one-poll")) {
            Outbox outbox = Outbox.builder(pool).table(table).build();
            RecordingPublisher broker = new RecordingPublisher();
            List<UUID> appended = new ArrayList<>();
            try (Relay relay = outbox.relay(broker)
                    .listen(false)
                    .pollInterval(Duration.ofMillis(200))
                    .build()) {
                relay.start();
                for (int tx = 0; tx < 20; tx++) {
                    List<OutboxEvent> events = List.of(event("o-" + tx), event("o-" + tx));
                    appendCommitted(outbox, events).forEach(e -> appended.add(e.id()));
                    outbox.committed();
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedCount() >= appended.size());
            }
            assertThat(broker.publishedIds()).containsExactlyInAnyOrderElementsOf(appended);
        }
        assertThat(count("SELECT count(*) FROM " + table)).isZero();
    }

    @Test
    void a_listening_relay_on_a_pool_of_one_gives_the_listen_connection_back_and_polls() {
        String table = outboxBuilder().build().table();
        try (HikariDataSource pool = poolOfOne("pool-of-one-listen")) {
            Outbox outbox = Outbox.builder(pool).table(table).build();
            RecordingPublisher broker = new RecordingPublisher();
            List<Map.Entry<String, Throwable>> errors = new CopyOnWriteArrayList<>();
            try (Relay relay = outbox.relay(broker)
                    .listen(true)
                    .pollInterval(Duration.ofMillis(200))
                    .listener(recordingErrors(errors))
                    .build()) {
                relay.start();
                // The LISTEN connection takes the only connection; the next claim times out on the pool,
                // and the relay gives the LISTEN connection back and polls from then on.
                await().atMost(Duration.ofSeconds(20)).until(() -> errors.stream()
                        .anyMatch(e -> e.getKey().equals("claim")
                                && e.getValue().getMessage().contains("Connection is not available")));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> count(
                                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
                                        "txoutbox-listen:txoutbox_" + table)
                                == 0);
                List<OutboxEvent> appended = new CopyOnWriteArrayList<>();
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
                    appended.addAll(appendCommitted(outbox, List.of(event("o-1"))));
                    return true;
                });
                await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedIds()
                        .contains(appended.get(0).id()));
            }
        }
    }
}
