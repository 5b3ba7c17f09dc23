package io.txoutbox.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Disabled;
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
        String table = newTable();
        Outbox.builder(dataSource).table(table).createSchemaIfMissing(true).build();
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
    void a_listening_relay_on_a_pool_of_one_holds_the_only_connection_and_starves_its_claims_and_the_application() {
        String table = newTable();
        Outbox.builder(dataSource).table(table).createSchemaIfMissing(true).build();
        try (HikariDataSource pool = poolOfOne("pool-of-one-listen")) {
            Outbox outbox = Outbox.builder(pool).table(table).build();
            RecordingPublisher broker = new RecordingPublisher();
            List<Map.Entry<String, Throwable>> errors = new CopyOnWriteArrayList<>();
            Relay relay = outbox.relay(broker)
                    .listen(true)
                    .pollInterval(Duration.ofMillis(200))
                    .listener(new RelayListener() {
                        @Override
                        public void onError(String relayName, String phase, Throwable error) {
                            errors.add(Map.entry(phase, error));
                        }
                    })
                    .build();
            try {
                relay.start();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> count(
                                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
                                        "txoutbox-listen:txoutbox_" + table)
                                == 1);
                errors.clear(); // before the listener won the connection, it may have timed out itself
                await().atMost(Duration.ofSeconds(20)).until(() -> errors.size() >= 2);
                assertThat(errors).allSatisfy(e -> {
                    assertThat(e.getKey()).isEqualTo("claim");
                    assertThat(e.getValue())
                            .isInstanceOf(OutboxStoreException.class)
                            .hasMessageContaining("Connection is not available, request timed out");
                });
                assertThatThrownBy(() -> appendCommitted(outbox, List.of(event("o-1"))))
                        .as("the application's own transaction cannot get a connection either")
                        .isInstanceOf(OutboxStoreException.class)
                        .hasMessageContaining("Connection is not available, request timed out");
                assertThat(broker.publishedCount()).isZero();
            } finally {
                relay.stop();
            }
            List<OutboxEvent> after = appendCommitted(outbox, List.of(event("o-2")));
            assertThat(after).as("stopping the relay frees the connection").hasSize(1);
        }
    }

    @Test
    @Disabled("core limit, for the core owner: the LISTEN connection is borrowed from the application's pool and"
            + " held for the relay's life; on a pool of one the relay never claims and the application's"
            + " transactions time out (see a_listening_relay_on_a_pool_of_one_holds_the_only_connection_...)."
            + " Expected: the relay still publishes (a dedicated LISTEN connection, or fall back to polling when"
            + " the pool cannot spare one), or build() refuses the configuration naming it")
    void a_listening_relay_on_a_pool_of_one_still_publishes() {
        String table = newTable();
        Outbox.builder(dataSource).table(table).createSchemaIfMissing(true).build();
        try (HikariDataSource pool = poolOfOne("pool-of-one-expected")) {
            Outbox outbox = Outbox.builder(pool).table(table).build();
            RecordingPublisher broker = new RecordingPublisher();
            try (Relay relay = outbox.relay(broker)
                    .listen(true)
                    .pollInterval(Duration.ofMillis(200))
                    .build()) {
                relay.start();
                List<OutboxEvent> appended = appendCommitted(outbox, List.of(event("o-1")));
                await().atMost(Duration.ofSeconds(20)).until(() -> broker.publishedIds()
                        .contains(appended.get(0).id()));
            }
        }
    }
}
