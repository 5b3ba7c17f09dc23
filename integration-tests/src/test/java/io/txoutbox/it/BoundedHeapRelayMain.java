package io.txoutbox.it;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.ClaimFairness;
import io.txoutbox.Outbox;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A relay with the default settings in a JVM of its own, started by the test with a small heap, whose
 * "broker" is a table: each event's id and payload size is inserted there (autocommitted) before the
 * relay marks it published. Runs until the test ends the process. Arguments: the database, the outbox
 * table, the broker table, and optionally the relay's attempt budget and its lease in milliseconds (the
 * publish timeout is half the lease).
 */
public final class BoundedHeapRelayMain {
    /** The system property naming the fairness of the relay's claims ({@code Outbox.Builder.fairClaims}). */
    static final String FAIR_CLAIMS = "txoutbox.it.fairClaims";

    private BoundedHeapRelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        TestDatabase database = TestDatabase.valueOf(args[0]);
        String table = args[1];
        String brokerTable = args[2];
        HikariDataSource dataSource = database.dataSource();
        String fair = System.getProperty(FAIR_CLAIMS);
        Outbox outbox = Outbox.builder(dataSource)
                .table(table)
                .fairClaims(fair == null ? null : ClaimFairness.valueOf(fair))
                .build();
        Publisher intoTable = batch -> CompletableFuture.completedFuture(BrokerTable.insertEach(
                dataSource, "INSERT INTO " + brokerTable + " (event_id, bytes) VALUES (?, ?)", batch, (ps, event) -> {
                    ps.setString(1, event.id().toString());
                    ps.setInt(2, event.payload().length);
                }));
        Relay.Builder relays =
                outbox.relay(intoTable).name("bounded").listen(false).pollInterval(Duration.ofMillis(200));
        if (args.length > 4) {
            Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
            relays.maxAttempts(Integer.parseInt(args[3])).leaseDuration(lease).publishTimeout(lease.dividedBy(2));
        }
        Relay relay = relays.build();
        relay.start();
        System.out.println("relay started; max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        Thread.sleep(Long.MAX_VALUE);
    }
}
