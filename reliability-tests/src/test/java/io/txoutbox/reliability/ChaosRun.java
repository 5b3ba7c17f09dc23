package io.txoutbox.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Outbox;
import io.txoutbox.reliability.ChaosBroker.Arrival;
import io.txoutbox.reliability.Ledger.TxOutcome;
import io.txoutbox.test.Sql;
import io.txoutbox.test.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The chaos harness. Relays run as separate JVMs ({@link ChaosRelayMain}) that read a PostgreSQL outbox
 * and publish to a broker the test owns ({@link ChaosBroker}: a private NATS server, ElasticMQ for SQS,
 * or an embedded Artemis for JMS) through a {@link TcpProxy}; producer threads in this JVM append
 * with random rollbacks and commit delays and record every outcome in a {@link Ledger}. A fault thread
 * carries out the planned faults in a seeded order at seeded times. At the end every fault is undone,
 * the outbox drains, the relays stop, and everything the broker stored is read back and checked against
 * the ledger.
 *
 * <p><b>The duplicate bound.</b> A copy of an event beyond the first reaches the broker only when a
 * relay had it delivered but its row was not marked published by that claim. With one batch per relay
 * in flight at any time, that happens to at most one claimed batch per:
 *
 * <ul>
 *   <li>relay kill (delivered, then killed before the mark);
 *   <li>relay stop past the lease (another relay takes the batch over; the frozen one may finish
 *       publishing it when it thaws, and its mark is fenced);
 *   <li>terminated relay backend (a mark fails on it; a mark is retried on a fresh connection and only
 *       a batch whose every try fails is left to the lease);
 *   <li>broker fault and relay (restart, cut, blackhole, delay: each relay may have a batch in flight
 *       whose acknowledgements are lost, and re-publishes it).
 * </ul>
 *
 * So {@code duplicates <= batchSize * inFlightBatches * (kills + stops + terminatedRelayBackends +
 * brokerFaults * relays)}: a pipelining relay may lose the marks of all its batches in flight at once.
 * Two choices keep it that tight for NATS, and are stated in RELIABILITY.md: the NATS client's reconnect
 * buffer is off (a publish while disconnected fails at once instead of being sent again after the relay
 * gave up on it), and the stream's duplicate window is 100 ms, the least JetStream takes (so the broker
 * does not hide the copies). The SQS queue and the JMS queue do not deduplicate at all.
 */
final class ChaosRun {
    private final ChaosConfig config;
    private final SplittableRandom random;
    private final String runId;
    private final Path runDir;
    private final List<String> timeline = Collections.synchronizedList(new ArrayList<>());

    private int kills;
    private int stops;
    private int brokerFaults;
    private int relayBackendsTerminated;
    private int producerBackendsTerminated;

    ChaosRun(ChaosConfig config) {
        this.config = config;
        this.random = new SplittableRandom(config.seed());
        this.runId = Pg.uniqueName("chaos");
        try {
            this.runDir = Files.createDirectories(Path.of("target", "chaos", runId));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a run measured. */
    record Result(
            ChaosConfig config,
            long committed,
            long rolledBack,
            long unknown,
            long arrivals,
            int kills,
            int stops,
            int brokerFaults,
            int relayBackendsTerminated,
            int producerBackendsTerminated,
            long lost,
            long invented,
            long rolledBackPublished,
            long duplicates,
            long payloadMismatches,
            long orderViolations,
            long bound,
            long unconfirmedBatches,
            long fencedBatches,
            long seconds,
            List<String> examples,
            Path runDir) {

        String summary() {
            return "CHAOS transport=" + config.transport().name().toLowerCase(java.util.Locale.ROOT) + " seed="
                    + config.seed() + " mode=" + (config.ordered() ? "ordered" : "unordered")
                    + " events=" + committed + " unknown=" + unknown + " rolledBack=" + rolledBack + " arrivals="
                    + arrivals + " kills=" + kills + " stops=" + stops + " outages=" + brokerFaults + " terminations="
                    + relayBackendsTerminated + " producerTerminations=" + producerBackendsTerminated + " lost=" + lost
                    + " invented=" + invented + " duplicates=" + duplicates + " bound=" + bound + " payloadMismatches="
                    + payloadMismatches + " orderViolations=" + orderViolations + " unconfirmedBatches="
                    + unconfirmedBatches + " fencedBatches=" + fencedBatches + " seconds=" + seconds;
        }
    }

    Result run() throws Exception {
        long started = System.nanoTime();
        String table = runId;
        Ledger ledger = new Ledger();
        List<RelayProcess> relays = new ArrayList<>();
        try (ChaosBroker broker = ChaosBroker.of(config.transport(), runId);
                HikariDataSource admin = Pg.pool("chaos-admin", 2);
                HikariDataSource producerPool = Pg.pool(runId + "-producer", config.producers() + 1)) {
            broker.start();
            Outbox.Builder outboxBuilder =
                    Outbox.builder(producerPool).table(table).createSchemaIfMissing(true);
            if (config.ordered()) {
                outboxBuilder.ordered(DeadHeadPolicy.BLOCK);
            }
            Outbox outbox = outboxBuilder.build();
            try (TcpProxy proxy = new TcpProxy("127.0.0.1", broker.port())) {
                List<String> target = broker.relayTarget(proxy.host(), proxy.port());
                for (int i = 0; i < config.relays(); i++) {
                    String name = "relay-" + i;
                    List<String> arguments = new ArrayList<>(target);
                    arguments.addAll(List.of(
                            table,
                            name,
                            Integer.toString(config.batchSize()),
                            Integer.toString(config.inFlightBatches()),
                            Long.toString(config.lease().toMillis()),
                            Long.toString(config.publishTimeout().toMillis()),
                            Boolean.toString(config.ordered()),
                            runId + "-relay-" + i));
                    relays.add(new RelayProcess(name, arguments, runDir));
                }
                relays.forEach(RelayProcess::start);
                log(config.relays() + " relays started, publishing to " + target.get(0) + " through the proxy");
                double rate = config.minEvents() * 0.9 / config.chaosDuration().toSeconds();
                Producers producers = new Producers(
                        outbox, producerPool, ledger, config.producers(), rate, config.ordered(), config.seed());
                producers.start();
                injectFaults(relays, broker, proxy, admin, table, producers);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (producers.committedEvents() < config.minEvents() && System.nanoTime() < deadline) {
                    PrivateNats.sleep(200);
                }
                producers.stop();
                if (producers.crash() != null) {
                    throw new AssertionError("a producer thread died", producers.crash());
                }
                log("producers stopped: " + producers.committedEvents() + " events committed, " + producers.failures()
                        + " transactions failed by faults");
                drain(admin, table);
                // All at once: a relay's transport may take seconds to close (the AWS SDK's event loops wait for a
                // quiet period), and one after the other those seconds add up.
                relays.parallelStream().forEach(RelayProcess::stopGracefully);
                log("relays stopped");
            } finally {
                relays.forEach(RelayProcess::kill);
            }
            List<Arrival> arrivals = broker.readAll();
            log("read back " + arrivals.size() + " messages from the broker");
            long unconfirmed = 0;
            long fenced = 0;
            for (RelayProcess relay : relays) {
                unconfirmed += relay.logLines("UNCONFIRMED").size();
                fenced += relay.logLines("FENCED").size();
            }
            Result result = check(ledger, arrivals, unconfirmed, fenced, (System.nanoTime() - started) / 1_000_000_000);
            Pg.dropOutbox(admin, table);
            writeTimeline(result);
            return result;
        }
    }

    private enum Fault {
        KILL,
        STOP,
        BROKER_RESTART,
        CUT,
        BLACKHOLE,
        DELAY,
        TERMINATE_RELAYS,
        TERMINATE_PRODUCERS
    }

    private void injectFaults(
            List<RelayProcess> relays,
            ChaosBroker broker,
            TcpProxy proxy,
            HikariDataSource admin,
            String table,
            Producers producers) {
        List<Fault> plan = new ArrayList<>();
        add(plan, Fault.KILL, config.kills());
        add(plan, Fault.STOP, config.stops());
        add(plan, Fault.BROKER_RESTART, config.brokerRestarts());
        add(plan, Fault.CUT, config.cuts());
        add(plan, Fault.BLACKHOLE, config.blackholes());
        add(plan, Fault.DELAY, config.delays());
        add(plan, Fault.TERMINATE_RELAYS, config.relayTerminations());
        add(plan, Fault.TERMINATE_PRODUCERS, config.producerTerminations());
        for (int i = plan.size() - 1; i > 0; i--) {
            Collections.swap(plan, i, random.nextInt(i + 1));
        }
        long end = System.nanoTime() + config.chaosDuration().toNanos();
        // Let the relays start and the backlog build before the first fault.
        PrivateNats.sleep(3_000);
        for (int i = 0; i < plan.size(); i++) {
            long left = Math.max(0, end - System.nanoTime()) / 1_000_000;
            long gap = (long) (left / (plan.size() - i) * (0.3 + random.nextDouble() * 0.7));
            PrivateNats.sleep(gap);
            Fault fault = plan.get(i);
            if (fault == Fault.KILL || fault == Fault.STOP) {
                // A backlog, so that the victim most likely has a batch in flight when it is hit.
                producers.burst(config.batchSize() * (4 + random.nextInt(20)), random);
                PrivateNats.sleep(random.nextInt(300));
            }
            carryOut(fault, relays, broker, proxy, admin, table);
        }
    }

    private static void add(List<Fault> plan, Fault fault, int times) {
        for (int i = 0; i < times; i++) {
            plan.add(fault);
        }
    }

    private void carryOut(
            Fault fault,
            List<RelayProcess> relays,
            ChaosBroker broker,
            TcpProxy proxy,
            HikariDataSource admin,
            String table) {
        switch (fault) {
            case KILL -> {
                RelayProcess victim = relays.get(random.nextInt(relays.size()));
                victim.kill();
                kills++;
                log("SIGKILL " + victim.name());
                PrivateNats.sleep(random.nextInt(1_000));
                victim.start();
            }
            case STOP -> {
                RelayProcess victim = relays.get(random.nextInt(relays.size()));
                long millis = config.lease().toMillis() + 1_000 + random.nextInt(2_000);
                victim.freeze();
                stops++;
                log("SIGSTOP " + victim.name() + " for " + millis + " ms");
                PrivateNats.sleep(millis);
                victim.thaw();
                log("SIGCONT " + victim.name());
            }
            case BROKER_RESTART -> {
                broker.stopBroker();
                brokerFaults++;
                long millis = 1_000 + random.nextInt(3_000);
                log(config.transport() + " broker stopped for " + millis + " ms");
                PrivateNats.sleep(millis);
                broker.startBroker();
                log(config.transport() + " broker started");
            }
            case CUT -> {
                proxy.cut();
                restoreAfter(proxy, "proxy cut", 500 + random.nextInt(2_000));
            }
            case BLACKHOLE -> {
                proxy.blackhole();
                restoreAfter(
                        proxy, "proxy blackhole", config.publishTimeout().toMillis() + 500 + random.nextInt(2_000));
            }
            case DELAY -> {
                proxy.delay(Duration.ofMillis(20));
                restoreAfter(proxy, "proxy delay 20 ms", 2_000 + random.nextInt(2_000));
            }
            case TERMINATE_RELAYS -> {
                int n = Pg.terminate(admin, runId + "-relay-%")
                        + Pg.terminate(admin, "txoutbox-listen:txoutbox_" + table);
                relayBackendsTerminated += n;
                log("pg_terminate_backend: " + n + " relay backends (LISTEN included)");
            }
            case TERMINATE_PRODUCERS -> {
                int n = Pg.terminate(admin, runId + "-producer");
                producerBackendsTerminated += n;
                log("pg_terminate_backend: " + n + " producer backends");
            }
        }
    }

    /** Counts a proxy fault just set, holds it for {@code millis}, then restores the proxy. */
    private void restoreAfter(TcpProxy proxy, String fault, long millis) {
        brokerFaults++;
        log(fault + " for " + millis + " ms");
        PrivateNats.sleep(millis);
        proxy.restore();
    }

    private void drain(HikariDataSource admin, String table) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        long left = -1;
        while (System.nanoTime() < deadline) {
            left = Sql.count(admin, "SELECT count(*) FROM " + table + " WHERE status <> 'dead'");
            if (left == 0) {
                break;
            }
            PrivateNats.sleep(250);
        }
        long dead = Sql.count(admin, "SELECT count(*) FROM " + table + " WHERE status = 'dead'");
        log("drained: " + left + " rows left, " + dead + " dead");
        if (left != 0 || dead != 0) {
            throw new AssertionError("the outbox did not drain within 180 s after the faults: " + left + " rows left, "
                    + dead + " dead; see " + runDir);
        }
    }

    Result check(Ledger ledger, List<Arrival> arrivals, long unconfirmed, long fenced, long seconds) {
        Set<UUID> published = new HashSet<>();
        List<String> examples = new ArrayList<>();
        long duplicates = 0;
        long mismatches = 0;
        long invented = 0;
        long rolledBackPublished = 0;
        long orderViolations = 0;
        Map<String, Long> lastSeq = new HashMap<>();
        for (Arrival a : arrivals) {
            if (a.id() == null) {
                invented++;
                example(examples, "message " + a.sequence() + " has no event-id header");
                continue;
            }
            boolean first = published.add(a.id());
            if (!first) {
                duplicates++;
            }
            TxOutcome outcome = ledger.outcome(a.id());
            if (outcome == null || outcome == TxOutcome.ROLLED_BACK) {
                if (first) {
                    invented++;
                    if (outcome == TxOutcome.ROLLED_BACK) {
                        rolledBackPublished++;
                    }
                    example(examples, "invented: " + a.id() + " (" + outcome + ") at " + a.sequence());
                }
                continue;
            }
            Ledger.Appended appended = ledger.event(a.id());
            if (!appended.payload().equals(a.payload())) {
                mismatches++;
                example(examples, "payload of " + a.id() + " at " + a.sequence() + " differs from the appended one");
            }
            if (first && config.ordered()) {
                Long previous = lastSeq.put(appended.aggregateId(), appended.aggregateSeq());
                if (previous != null && previous >= appended.aggregateSeq()) {
                    orderViolations++;
                    example(
                            examples,
                            "order: " + appended.aggregateId() + " #" + appended.aggregateSeq()
                                    + " first arrived after #" + previous);
                }
            }
        }
        long lost = 0;
        for (UUID id : ledger.ids(TxOutcome.COMMITTED)) {
            if (!published.contains(id)) {
                lost++;
                example(examples, "lost: " + id);
            }
        }
        long bound = (long) config.batchSize()
                * config.inFlightBatches()
                * (kills + stops + relayBackendsTerminated + (long) brokerFaults * config.relays());
        return new Result(
                config,
                ledger.count(TxOutcome.COMMITTED),
                ledger.count(TxOutcome.ROLLED_BACK),
                ledger.count(TxOutcome.UNKNOWN),
                arrivals.size(),
                kills,
                stops,
                brokerFaults,
                relayBackendsTerminated,
                producerBackendsTerminated,
                lost,
                invented,
                rolledBackPublished,
                duplicates,
                mismatches,
                orderViolations,
                bound,
                unconfirmed,
                fenced,
                seconds,
                examples,
                runDir);
    }

    private static void example(List<String> examples, String text) {
        if (examples.size() < 20) {
            examples.add(text);
        }
    }

    private void log(String event) {
        timeline.add(String.format("%tT.%<tL %s", System.currentTimeMillis(), event));
    }

    private void writeTimeline(Result result) throws IOException {
        List<String> lines = new ArrayList<>(timeline);
        lines.add(result.summary());
        lines.addAll(result.examples());
        Files.write(runDir.resolve("timeline.txt"), lines, StandardCharsets.UTF_8);
        Files.writeString(
                Path.of("target", "chaos", "summary.txt"),
                result.summary() + System.lineSeparator(),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
