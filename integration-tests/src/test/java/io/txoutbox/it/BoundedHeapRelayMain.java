package io.txoutbox.it;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A relay with the default settings in a JVM of its own, started by the test with a small heap, whose
 * "broker" is a table: each event's id and payload size is inserted there (autocommitted) before the
 * relay marks it published. Runs until the test ends the process. Arguments: the database, the outbox
 * table, the broker table.
 */
public final class BoundedHeapRelayMain {
    private BoundedHeapRelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        TestDatabase database = TestDatabase.valueOf(args[0]);
        String table = args[1];
        String brokerTable = args[2];
        HikariDataSource dataSource = database.dataSource();
        Outbox outbox = Outbox.builder(dataSource).table(table).build();
        Publisher intoTable = batch -> {
            List<PublishOutcome> outcomes = new ArrayList<>();
            try (Connection c = dataSource.getConnection();
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO " + brokerTable + " (event_id, bytes) VALUES (?, ?)")) {
                for (ClaimedEvent event : batch) {
                    ps.setString(1, event.id().toString());
                    ps.setInt(2, event.payload().length);
                    ps.executeUpdate();
                    outcomes.add(PublishOutcome.PUBLISHED);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return CompletableFuture.completedFuture(outcomes);
        };
        Relay relay = outbox.relay(intoTable)
                .name("bounded")
                .listen(false)
                .pollInterval(Duration.ofMillis(200))
                .build();
        relay.start();
        System.out.println("relay started; max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        Thread.sleep(Long.MAX_VALUE);
    }
}
