package io.txoutbox.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.nats.client.Options;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Outbox;
import io.txoutbox.harness.sqs.ElasticMqServer;
import io.txoutbox.jms.JmsPublisher;
import io.txoutbox.nats.NatsPublisher;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.spi.Router;
import io.txoutbox.sqs.SqsPublisher;
import java.time.Duration;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * One relay in a JVM of its own, as the chaos harness starts it: PostgreSQL directly (its backends
 * carry the application name given, so the test can terminate them), the broker through the test's
 * proxy: NATS JetStream, SQS (ElasticMQ) or JMS (ActiveMQ Artemis). It runs until it is killed; SIGTERM
 * stops it gracefully.
 *
 * <p>It prints one line per batch that was not fully confirmed ({@code UNCONFIRMED <relay> <events>})
 * and per fenced batch ({@code FENCED <relay> <events>}), flushed at once, so the harness can read them
 * even after a SIGKILL.
 *
 * <p>Arguments: transport ({@code nats|sqs|jms}), target (the broker's URL through the proxy),
 * destination (the subject prefix, the queue name), table, relay name, batch size, batches in flight,
 * lease ms, publish timeout ms, ordered ({@code true|false}), application name.
 */
public final class ChaosRelayMain {
    private ChaosRelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        String transport = args[0];
        String target = args[1];
        String destination = args[2];
        String table = args[3];
        String name = args[4];
        int batchSize = Integer.parseInt(args[5]);
        int inFlightBatches = Integer.parseInt(args[6]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[7]));
        Duration publishTimeout = Duration.ofMillis(Long.parseLong(args[8]));
        boolean ordered = Boolean.parseBoolean(args[9]);
        String applicationName = args[10];

        // The claim, the LISTEN connection, a mark per batch in flight, and one to spare.
        HikariDataSource dataSource = null;
        Outbox outbox = null;
        // The harness terminates this relay's backends at any time, start-up included (the pool's first
        // connection, the schema check): retry as a supervisor would restart the process, instead of dying
        // before READY on a slow machine.
        for (int attempt = 1; outbox == null; attempt++) {
            dataSource = null;
            try {
                dataSource = Pg.pool(applicationName, 3 + inFlightBatches);
                Outbox.Builder builder = Outbox.builder(dataSource).table(table);
                if (ordered) {
                    builder.ordered(DeadHeadPolicy.BLOCK);
                }
                outbox = builder.build();
            } catch (RuntimeException e) {
                if (dataSource != null) {
                    dataSource.close();
                }
                if (attempt == 20) {
                    throw e;
                }
                System.out.println("START-UP RETRY " + name + " " + attempt + ": "
                        + e.getClass().getSimpleName());
                Thread.sleep(250);
            }
        }
        HikariDataSource pool = dataSource;
        // The transport answers before the relay gives up on a batch, so that a late confirmation is
        // never the reason for a re-publish.
        Duration transportTimeout = publishTimeout.minusMillis(500);
        Publisher publisher =
                switch (transport) {
                    case "nats" -> nats(target, destination, name, transportTimeout);
                    case "sqs" -> sqs(target, destination, transportTimeout);
                    case "jms" -> jms(target, destination, transportTimeout);
                    default -> throw new IllegalArgumentException("unknown transport " + transport);
                };
        Relay relay = outbox.relay(publisher)
                .name(name)
                .batchSize(batchSize)
                .maxInFlightBatches(inFlightBatches)
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
            pool.close();
        }));
        // An orphan (the test JVM died without stopping it) must not run forever.
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit()
                .thenRun(() -> Runtime.getRuntime().halt(3)));
        relay.start();
        System.out.println("READY " + name + " " + ProcessHandle.current().pid());
        Thread.sleep(Long.MAX_VALUE);
    }

    private static Publisher nats(String url, String subjectPrefix, String name, Duration timeout) {
        // No reconnect buffer: a publish while disconnected fails at once (a retry) instead of being
        // buffered and sent after the relay already gave up on it, which would add a copy per attempt.
        Options options = new Options.Builder()
                .server(url)
                .connectionName(name)
                .connectionTimeout(Duration.ofSeconds(2))
                .reconnectWait(Duration.ofMillis(200))
                .maxReconnects(-1)
                .reconnectBufferSize(0)
                .build();
        return NatsPublisher.builder()
                .options(options)
                .subjectPrefix(subjectPrefix)
                .publishTimeout(timeout)
                .build();
    }

    /** As an application would configure it: the SDK's own retries stay on. */
    private static Publisher sqs(String endpoint, String queue, Duration timeout) {
        return SqsPublisher.builder()
                .region(ElasticMqServer.REGION)
                .endpoint(endpoint)
                .credentials(ElasticMqServer.ACCESS_KEY, ElasticMqServer.SECRET_KEY)
                .router(Router.fixed(queue))
                .publishTimeout(timeout)
                .build();
    }

    /**
     * Synchronous persistent sends; Artemis's blocking calls give up after 1 s (not its 30 s), so that a
     * lane stuck on a blackholed connection frees itself before the next batch.
     */
    private static Publisher jms(String brokerUrl, String queue, Duration timeout) {
        return JmsPublisher.builder()
                .connectionFactory(new ActiveMQConnectionFactory(brokerUrl + "?callTimeout=1000"))
                .router(Router.fixed(queue))
                .publishTimeout(timeout)
                .build();
    }
}
