package io.txoutbox.it;

import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Outbox;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import java.time.Duration;

/**
 * An ordered relay in a process of its own, publishing to a {@link BrokerTable} with transient
 * failures, until it is killed. Arguments: the database, the outbox table, the broker table, a seed.
 */
public final class OrderedRelayMain {
    private OrderedRelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        TestDatabase database = TestDatabase.valueOf(args[0]);
        Outbox outbox = Outbox.builder(database.dataSource())
                .table(args[1])
                .ordered(DeadHeadPolicy.BLOCK)
                .build();
        relay(outbox, new BrokerTable(database.dataSource(), args[2], 0.1, Long.parseLong(args[3])), "child")
                .start();
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * @return a relay of the outbox to the broker table with the settings of every relay of {@link
     *     OrderedDeliveryContract}, in the test's JVM and in this one; with the default batches in flight
     *     (pipelining), so that the contract proves the default keeps each aggregate's order
     */
    static Relay relay(Outbox outbox, BrokerTable broker, String name) {
        return outbox.relay(broker)
                .name(name)
                .batchSize(200)
                .leaseDuration(Duration.ofSeconds(2))
                .publishTimeout(Duration.ofSeconds(1))
                .pollInterval(Duration.ofMillis(100))
                .backoff(new Backoff(Duration.ofMillis(20), 2.0, Duration.ofMillis(200), true))
                .maxAttempts(1_000)
                .build();
    }
}
