package io.txoutbox.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.nats.client.Options;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Outbox;
import io.txoutbox.nats.NatsPublisher;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.RelayListener;
import java.time.Duration;

/**
 * One relay in a JVM of its own, as the chaos harness starts it: PostgreSQL directly (its backends
 * carry the application name given, so the test can terminate them), NATS JetStream through the
 * test's proxy. It runs until it is killed; SIGTERM stops it gracefully.
 *
 * <p>It prints one line per batch that was not fully confirmed ({@code UNCONFIRMED <relay> <events>})
 * and per fenced batch ({@code FENCED <relay> <events>}), flushed at once, so the harness can read them
 * even after a SIGKILL.
 *
 * <p>Arguments: table, NATS URL, subject prefix, relay name, batch size, lease ms, publish timeout ms,
 * ordered ({@code true|false}), application name.
 */
public final class ChaosRelayMain {
    private ChaosRelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        String table = args[0];
        String natsUrl = args[1];
        String subjectPrefix = args[2];
        String name = args[3];
        int batchSize = Integer.parseInt(args[4]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
        Duration publishTimeout = Duration.ofMillis(Long.parseLong(args[6]));
        boolean ordered = Boolean.parseBoolean(args[7]);
        String applicationName = args[8];

        HikariDataSource dataSource = Pg.pool(applicationName, 4);
        Outbox.Builder builder = Outbox.builder(dataSource).table(table);
        if (ordered) {
            builder.ordered(DeadHeadPolicy.BLOCK);
        }
        Outbox outbox = builder.build();
        // No reconnect buffer: a publish while disconnected fails at once (a retry) instead of being
        // buffered and sent after the relay already gave up on it, which would add a copy per attempt.
        Options options = new Options.Builder()
                .server(natsUrl)
                .connectionName(name)
                .connectionTimeout(Duration.ofSeconds(2))
                .reconnectWait(Duration.ofMillis(200))
                .maxReconnects(-1)
                .reconnectBufferSize(0)
                .build();
        NatsPublisher publisher = NatsPublisher.builder()
                .options(options)
                .subjectPrefix(subjectPrefix)
                .publishTimeout(publishTimeout.minusMillis(500))
                .build();
        Relay relay = outbox.relay(publisher)
                .name(name)
                .batchSize(batchSize)
                .leaseDuration(lease)
                .publishTimeout(publishTimeout)
                .pollInterval(Duration.ofMillis(500))
                .backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), true))
                .maxAttempts(1_000)
                .listener(new RelayListener() {
                    @Override
                    public void onBatch(BatchReport report) {
                        long unconfirmed = report.events().size() - report.count(Outcome.PUBLISHED);
                        if (unconfirmed > 0) {
                            System.out.println("UNCONFIRMED " + name + " "
                                    + report.events().size());
                        }
                        if (!report.fenced().isEmpty()) {
                            System.out.println(
                                    "FENCED " + name + " " + report.fenced().size());
                        }
                    }
                })
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.stop();
            publisher.close();
            dataSource.close();
        }));
        // An orphan (the test JVM died without stopping it) must not run forever.
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit()
                .thenRun(() -> Runtime.getRuntime().halt(3)));
        relay.start();
        System.out.println("READY " + name + " " + ProcessHandle.current().pid());
        Thread.sleep(Long.MAX_VALUE);
    }
}
