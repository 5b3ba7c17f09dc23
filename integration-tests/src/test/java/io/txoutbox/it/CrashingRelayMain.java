package io.txoutbox.it;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A relay in a process of its own whose "broker" is a table: it publishes a batch (an autocommitted
 * insert per event is the broker's confirmation) and then the process dies, by {@code halt}, before the
 * relay can mark the batch. Arguments: the database, the outbox table, the broker table, the lease in
 * milliseconds.
 */
public final class CrashingRelayMain {
    static final int EXIT_CODE = 137;

    private CrashingRelayMain() {}

    public static void main(String[] args) {
        TestDatabase database = TestDatabase.valueOf(args[0]);
        String table = args[1];
        String brokerTable = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        HikariDataSource dataSource = database.dataSource();
        Outbox outbox = Outbox.builder(dataSource).table(table).build();
        Publisher confirmThenDie = batch -> {
            List<PublishOutcome> outcomes = BrokerTable.insertEach(
                    dataSource,
                    "INSERT INTO " + brokerTable + " (event_id) VALUES (?)",
                    batch,
                    (ps, event) -> ps.setString(1, event.id().toString()));
            // The broker has confirmed every event; the relay dies before it can mark them.
            Runtime.getRuntime().halt(EXIT_CODE);
            return CompletableFuture.completedFuture(outcomes);
        };
        Relay relay = outbox.relay(confirmThenDie)
                .name("doomed")
                .leaseDuration(lease)
                .publishTimeout(lease.dividedBy(2))
                .build();
        relay.runOnce();
        System.exit(1); // not reached when a batch was claimed
    }
}
