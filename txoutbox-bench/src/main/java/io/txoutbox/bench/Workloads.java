package io.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxTable;
import io.txoutbox.harness.kafka.KafkaBroker;
import io.txoutbox.harness.load.ClosedLoop;
import io.txoutbox.kafka.KafkaPublisher;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.spi.Router;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/** W1 to W5 and ordered mode, each side by side: raw SQL, txoutbox and the peer. */
final class Workloads {
    static final String RAW = "raw SQL";
    static final String TXOUTBOX = "txoutbox";
    static final String PEER = "gruelbox";
    /** W2: the producers alone, no relay: the machine's commit ceiling for these transactions. */
    static final String CEILING = "producers alone";
    /** W2: txoutbox with the relay in another JVM, woken by the appenders' after-commit notifications. */
    static final String TX_REMOTE = "txoutbox, relay in another JVM";
    /** W2: txoutbox with the relay in the appenders' JVM, woken by {@code committed()}. */
    static final String TX_IN_JVM = "txoutbox, relay in this JVM";
    /** W2: rows inserted by hand (not txoutbox), txoutbox relay with its adaptive poll only. */
    static final String FOREIGN_POLL = "rows by hand, adaptive poll";
    /** W2: rows inserted by hand, txoutbox relay woken by the foreign-writer trigger when idle. */
    static final String FOREIGN_TRIGGER = "rows by hand, idle-wake trigger";
    /** W1's baseline: what a user would do without us, the same rows by hand into a table with no trigger. */
    static final String BASELINE = "by hand, no trigger";
    /** txoutbox 0.1: every appending transaction notified through a trigger (the before of W1). */
    static final String TXOUTBOX_01 = "txoutbox 0.1 (NOTIFY trigger)";
    /** Raw SQL doing what txoutbox does in SQL: lease with UPDATE, commit, DELETE fenced by owner, commit. */
    static final String RAW_LEASE = "raw SQL, lease+delete";

    /** txoutbox's relay settings in every drain: chosen as a user would, stated in BENCHMARKS.md. */
    static final int RELAY_BATCH = 500;
    /** The raw ceiling claims the same number of rows per statement. */
    static final int RAW_BATCH = RELAY_BATCH;
    /** Kafka producer linger for batched sends (raw and txoutbox); the peer sends one record at a time. */
    static final int LINGER_MS = 5;

    static final String PAYLOAD =
            "{\"orderId\":%d,\"customer\":\"c-0042\",\"amount\":123.45,\"currency\":\"EUR\"," + "\"lines\":3}";

    private final Pg pg;
    private final Sizes sizes;
    private final Results results;
    private final Supplier<KafkaBroker> kafka;
    private final AtomicLong seq = new AtomicLong();
    /** The fillfactor drains set on their table before loading; 0 keeps txoutbox's DDL (50). */
    private int fillfactor;
    /** The batches in flight txoutbox's drains set; 0 leaves the relay's default. */
    int inFlight;

    Workloads(Pg pg, Sizes sizes, Results results, Supplier<KafkaBroker> kafka) {
        this.pg = pg;
        this.sizes = sizes;
        this.results = results;
        this.kafka = kafka;
    }

    // ---------------------------------------------------------------- W1

    /**
     * A business insert with 0, 1 or 10 events per transaction, N threads, closed loop. The baseline is
     * what a user would write without us: the business insert and the same outbox rows inserted by hand
     * into a table with no trigger. txoutbox appends and calls {@code committed()} after each commit, as
     * its users do (the after-commit notifications run, on a connection of their own, although no relay
     * listens). txoutbox and the baseline run in paired rounds, their order alternating, and the median of
     * the per-round ratios counts (the machine is shared and noisy: a pair sees the same noise); each round
     * also measures the business insert alone, the machine's ceiling. "txoutbox 0.1" is the same append on
     * a table with 0.1's NOTIFY trigger, for the before and after; it and the peer count their best of
     * {@link #W1_SINGLE_ROUNDS} rounds. While each cell runs, the appending backends' wait events are sampled.
     */
    void w1() throws Exception {
        String orders = pg.table("w1_orders");
        pg.exec("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, customer text NOT NULL,"
                + " amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
        String table = freshOutboxTable("w1_outbox");
        String baselineTable = freshOutboxTable("w1_baseline");
        String oldTable = freshOutboxTable("w1_old");
        addAlwaysNotifyTrigger(oldTable);
        int threads = sizes.w1Threads();
        String appName = "txbench-w1";
        try (HikariDataSource pool = pg.pool(appName, threads + 2);
                Outbox outbox = outbox(pool, table, null);
                Outbox old = Outbox.builder(pool)
                        .table(oldTable)
                        .dialect(Dialect.POSTGRESQL)
                        .notifyAfterCommit(false)
                        .build()) {
            Peer peer = new Peer(pool, Sink.NOOP, new Recorder(false), false);
            try {
                String peerTable = pg.table("txno_outbox");
                String baselineInsert = "INSERT INTO " + baselineTable + " (id, aggregate_type, aggregate_id,"
                        + " event_type, event_version, payload, content_type, headers, tenant_id, destination,"
                        + " created_at, available_at, max_attempts) VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?,"
                        + " ?, ?, ?)";
                String businessInsert = "INSERT INTO " + orders + " (customer, amount) VALUES (?, ?)";
                Map<String, Double> best = new java.util.HashMap<>();
                Map<String, List<Double>> all = new java.util.HashMap<>();
                Map<String, WaitSampler.Counts> waits = new java.util.HashMap<>();
                List<String> backends = List.of(appName, notifierName(table));
                List<String> paired = List.of(TXOUTBOX, BASELINE);
                for (int round = 0; round < sizes.w1Rounds(); round++) {
                    for (int events : new int[] {0, 1, 10}) {
                        List<String> variants = new ArrayList<>(events == 0 ? List.of("business only") : paired);
                        Collections.rotate(variants, round);
                        if (events > 0 && round < W1_SINGLE_ROUNDS) {
                            variants.addAll(List.of(PEER, TXOUTBOX_01));
                        }
                        for (String variant : variants) {
                            pg.exec("TRUNCATE " + orders + ", " + table + ", " + baselineTable + ", " + oldTable + ", "
                                    + peerTable);
                            Outbox appending = outbox;
                            Tx tx =
                                    switch (variant) {
                                        case TXOUTBOX ->
                                            c -> {
                                                business(c, businessInsert);
                                                appending.appendAll(c, events(events));
                                            };
                                        case TXOUTBOX_01 ->
                                            c -> {
                                                business(c, businessInsert);
                                                old.appendAll(c, events(events));
                                            };
                                        case BASELINE ->
                                            c -> {
                                                business(c, businessInsert);
                                                rawAppend(c, baselineInsert, events);
                                            };
                                        default -> c -> business(c, businessInsert);
                                    };
                            boolean signals = variant.equals(TXOUTBOX);
                            AtomicLong count = new AtomicLong();
                            long sentBefore = appending.wakeupCounters().sent();
                            W1Costs costs = W1Costs.start(pg.admin(), backends);
                            double tps;
                            try (WaitSampler sampler = new WaitSampler(pg.admin(), appName).start()) {
                                tps = variant.equals(PEER)
                                        ? closedLoop(threads, () -> {
                                            peer.transactions.inTransactionThrows(t -> {
                                                business(t.connection(), businessInsert);
                                                for (int i = 0; i < events; i++) {
                                                    long n = seq.incrementAndGet();
                                                    peer.schedule(UUID.randomUUID(), "order-" + n, payload(n));
                                                }
                                            });
                                            count.incrementAndGet();
                                        })
                                        : closedLoop(threads, () -> {
                                            try (Connection c = pool.getConnection()) {
                                                c.setAutoCommit(false);
                                                tx.run(c);
                                                c.commit();
                                            }
                                            if (signals) {
                                                appending.committed();
                                            }
                                            count.incrementAndGet();
                                        });
                                String key = events + "|" + variant;
                                all.computeIfAbsent(key, k -> new ArrayList<>()).add(tps);
                                double[] cpu = costs.perTransaction(count.get());
                                all.computeIfAbsent(key + "|client", k -> new ArrayList<>())
                                        .add(cpu[0]);
                                all.computeIfAbsent(key + "|server", k -> new ArrayList<>())
                                        .add(cpu[1]);
                                all.computeIfAbsent(key + "|notify", k -> new ArrayList<>())
                                        .add((appending.wakeupCounters().sent() - sentBefore) / (double) count.get());
                                if (tps > best.getOrDefault(key, 0.0)) {
                                    best.put(key, tps);
                                    waits.put(key, sampler.counts());
                                }
                            }
                        }
                    }
                }
                int rounds = sizes.w1Rounds();
                double none = median(all.get("0|business only"));
                addCosts("0 events/tx", "business only", all, "0|business only");
                results.add(
                        "W1",
                        "0 events/tx",
                        "business only",
                        "tx/s",
                        none,
                        "tx/s",
                        "the machine's ceiling for these transactions: median of " + rounds + " rounds, one in each"
                                + " round of the pairs; range " + range(all.get("0|business only")));
                for (int events : new int[] {1, 10}) {
                    String scenario = events + " event" + (events > 1 ? "s" : "") + "/tx";
                    List<Double> baseRounds = all.get(events + "|" + BASELINE);
                    double base = median(baseRounds);
                    results.add(
                            "W1",
                            scenario,
                            BASELINE,
                            "tx/s",
                            base,
                            "tx/s",
                            "median of " + rounds + " rounds; range " + range(baseRounds));
                    addPaired(scenario, TXOUTBOX, all.get(events + "|" + TXOUTBOX), baseRounds);
                    for (String v : paired) {
                        addCosts(scenario, v, all, events + "|" + v);
                    }
                    for (String v : List.of(PEER, TXOUTBOX_01)) {
                        double tps = best.get(events + "|" + v);
                        results.add(
                                "W1",
                                scenario,
                                v,
                                "tx/s",
                                tps,
                                "tx/s",
                                "best of " + Math.min(rounds, W1_SINGLE_ROUNDS) + " rounds");
                        results.add(
                                "W1",
                                scenario,
                                v,
                                "overhead",
                                (base / tps - 1) * 100,
                                "%",
                                "time per tx vs the baseline's median");
                    }
                    results.add(
                            "W1",
                            scenario,
                            TXOUTBOX,
                            "vs gruelbox",
                            best.get(events + "|" + TXOUTBOX) / best.get(events + "|" + PEER),
                            "x",
                            "txoutbox tx/s / gruelbox tx/s, best round of each");
                    for (String v : List.of(BASELINE, TXOUTBOX, PEER, TXOUTBOX_01)) {
                        WaitSampler.Counts w = waits.get(events + "|" + v);
                        results.add(
                                "W1",
                                scenario,
                                v,
                                "notify-lock waits",
                                w.notifyLock(),
                                "samples",
                                "of " + w.active() + " samples of active appending backends (pg_stat_activity every"
                                        + " 2 ms, best round); most frequent waits: " + w.top());
                    }
                }
            } finally {
                peer.close();
            }
        }
        pg.exec("DROP TABLE " + orders + ", " + table + ", " + baselineTable + ", " + oldTable);
        pg.exec("DROP FUNCTION IF EXISTS " + oldTable + "_notify()");
        dropPeerTables();
    }

    /** Rounds of W1's single cells (the peer, txoutbox 0.1): the best counts. */
    static final int W1_SINGLE_ROUNDS = 2;

    /** A variant paired with the baseline: its median tx/s, and the median of its per-round ratios. */
    private void addPaired(String scenario, String variant, List<Double> rounds, List<Double> baseRounds) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < rounds.size(); i++) {
            ratios.add(rounds.get(i) / baseRounds.get(i));
        }
        double ratio = median(ratios);
        results.add(
                "W1",
                scenario,
                variant,
                "tx/s",
                median(rounds),
                "tx/s",
                "median of " + rounds.size() + " rounds; range " + range(rounds));
        results.add(
                "W1",
                scenario,
                variant,
                "vs by hand",
                ratio,
                "x",
                "median of the " + ratios.size() + " paired rounds' tx/s ratios (order alternating); range "
                        + range(ratios));
        results.add(
                "W1",
                scenario,
                variant,
                "overhead",
                (1 / ratio - 1) * 100,
                "%",
                "time per tx vs the baseline, from the median paired ratio");
    }

    /** The CPU per transaction of a cell (medians over its rounds), and its after-commit notifications. */
    private void addCosts(String scenario, String variant, Map<String, List<Double>> all, String key) {
        String note = "median of " + all.get(key).size() + " rounds, warm-up included; range ";
        results.add(
                "W1",
                scenario,
                variant,
                "client CPU",
                median(all.get(key + "|client")),
                "us/tx",
                note + range(all.get(key + "|client")) + "; this JVM, every thread");
        results.add(
                "W1",
                scenario,
                variant,
                "server CPU",
                median(all.get(key + "|server")),
                "us/tx",
                note + range(all.get(key + "|server")) + "; the pool's backends and the notifier's, from /proc");
        if (variant.equals(TXOUTBOX)) {
            results.add(
                    "W1",
                    scenario,
                    variant,
                    "notifications",
                    median(all.get(key + "|notify")),
                    "per tx",
                    note + range(all.get(key + "|notify")) + "; pg_notify transactions of the after-commit notifier");
        }
    }

    /** The application_name of a table's after-commit notifier (PgNotifier.applicationName). */
    private static String notifierName(String table) {
        String name = "txoutbox-notify:" + channel(table);
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String range(List<Double> values) {
        double lo = Collections.min(values);
        double hi = Collections.max(values);
        return hi < 10
                ? String.format(java.util.Locale.ROOT, "%.3f..%.3f", lo, hi)
                : String.format(java.util.Locale.ROOT, "%.0f..%.0f", lo, hi);
    }

    /** The trigger txoutbox 0.1 created: one NOTIFY from every appending transaction, at its commit. */
    private void addAlwaysNotifyTrigger(String table) {
        pg.exec("CREATE OR REPLACE FUNCTION " + table + "_notify() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN PERFORM pg_notify('" + channel(table) + "', ''); RETURN NULL; END $$");
        pg.exec("CREATE TRIGGER " + table.substring(table.indexOf('.') + 1) + "_notify AFTER INSERT ON " + table
                + " FOR EACH STATEMENT EXECUTE FUNCTION " + table + "_notify()");
    }

    private List<OutboxEvent> events(int n) {
        List<OutboxEvent> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(event());
        }
        return list;
    }

    @FunctionalInterface
    interface Tx {
        void run(Connection c) throws Exception;
    }

    /** Runs work on N threads for 1 s of warm-up plus the measured time; returns completions per second. */
    private double closedLoop(int threads, ClosedLoop.Work work) throws Exception {
        return ClosedLoop.perSecond(threads, Duration.ofSeconds(1), Duration.ofSeconds(sizes.w1Seconds()), work);
    }

    private static void business(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, "c-0042");
            ps.setBigDecimal(2, new java.math.BigDecimal("123.45"));
            ps.executeUpdate();
        }
    }

    /** The same rows txoutbox writes, with the same statement shape, by hand. */
    private void rawAppend(Connection c, String sql, int events) throws SQLException {
        if (events == 0) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            for (int i = 0; i < events; i++) {
                long n = seq.incrementAndGet();
                ps.setObject(1, Ids.v7());
                ps.setString(2, "order");
                ps.setString(3, "order-" + n);
                ps.setString(4, "order.placed");
                ps.setInt(5, 1);
                ps.setBytes(6, payload(n).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                ps.setString(7, "application/json");
                ps.setString(8, "{}");
                ps.setString(9, null);
                ps.setString(10, null);
                ps.setObject(11, now);
                ps.setObject(12, now);
                ps.setNull(13, java.sql.Types.INTEGER);
                if (events > 1) {
                    ps.addBatch();
                }
            }
            if (events > 1) {
                ps.executeBatch();
            } else {
                ps.executeUpdate();
            }
        }
    }

    private OutboxEvent event() {
        return event(seq.incrementAndGet());
    }

    /** @return the event of every producer: an order placed, with W4's payload */
    static OutboxEvent event(long n) {
        return OutboxEvent.builder("order.placed")
                .aggregate("order", "order-" + n)
                .jsonPayload(payload(n))
                .build();
    }

    /** Parks until {@code System.nanoTime()} reaches {@code nanoTime} (open-loop pacing). */
    static void parkUntil(long nanoTime) {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    static String payload(long n) {
        return String.format(java.util.Locale.ROOT, PAYLOAD, n);
    }

    // ---------------------------------------------------------------- W2

    /**
     * Open-loop producers at fixed rates; commit-to-confirmation latency; the highest sustainable rate.
     * Variants: txoutbox with its relay in another JVM (woken only by the appenders' after-commit
     * notifications, what a relay in another process gets) and in this JVM (woken directly by {@code
     * committed()}); rows inserted by hand by a program that is not txoutbox, relayed by txoutbox with
     * its adaptive poll alone, and with the foreign-writer trigger; the hand-made outbox with the classic
     * always-notify trigger and a LISTEN relay; the peer; and the producers alone with no relay at all,
     * the machine's own commit ceiling for these transactions.
     */
    void w2() throws Exception {
        String orders = pg.table("w2_orders");
        pg.exec("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, customer text NOT NULL,"
                + " amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
        String businessInsert = "INSERT INTO " + orders + " (customer, amount) VALUES (?, ?)";
        int ceilingRate = 0;
        for (String variant : List.of(CEILING, TX_REMOTE, TX_IN_JVM, FOREIGN_POLL, FOREIGN_TRIGGER, RAW, PEER)) {
            Recorder rec = new Recorder(true);
            AtomicReference<Recorder> current = new AtomicReference<>(rec);
            String table = freshOutboxTable("w2_outbox");
            ExecutorService producers = Executors.newFixedThreadPool(8);
            List<AutoCloseable> open = new ArrayList<>();
            // Pools sized as the README asks: a relay's connections at once with its defaults (LISTEN included)
            // beside what the application needs (8 producers and the notifier); the in-JVM relay shares the
            // producers' pool, as an application's relay does.
            int relayConnections = Relay.Builder.connectionsAtOnce(Relay.Builder.DEFAULT_MAX_IN_FLIGHT_BATCHES, true);
            try (HikariDataSource producerPool = pg.pool("w2-producers", 9 + relayConnections);
                    HikariDataSource relayPool = pg.pool("w2-relay", relayConnections)) {
                String byHand = "INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type,"
                        + " payload, created_at, available_at) VALUES (?, 'order', ?, 'order.placed', ?, now(), now())";
                Produce handWritten = () -> {
                    UUID id = Ids.v7();
                    long n = seq.incrementAndGet();
                    try (Connection c = producerPool.getConnection()) {
                        c.setAutoCommit(false);
                        business(c, businessInsert);
                        try (PreparedStatement ps = c.prepareStatement(byHand)) {
                            ps.setObject(1, id);
                            ps.setString(2, "order-" + n);
                            ps.setBytes(3, payload(n).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                            ps.executeUpdate();
                        }
                        c.commit();
                    }
                    return id;
                };
                Produce produce;
                switch (variant) {
                    case CEILING -> produce = handWritten;
                    case RAW -> {
                        addAlwaysNotifyTrigger(table);
                        open.add(new RawRelay(relayPool, table, channel(table), RAW_BATCH, Sink.NOOP, proxy(current))
                                .start(1));
                        produce = handWritten;
                    }
                    case FOREIGN_POLL, FOREIGN_TRIGGER -> {
                        Outbox relaySide = Outbox.builder(relayPool)
                                .table(table)
                                .dialect(Dialect.POSTGRESQL)
                                .createSchemaIfMissing(variant.equals(FOREIGN_TRIGGER))
                                .foreignWriterWakeups(variant.equals(FOREIGN_TRIGGER))
                                .build();
                        open.add(relaySide);
                        open.add(startRelay(relaySide, current));
                        produce = handWritten;
                    }
                    case TX_REMOTE, TX_IN_JVM -> {
                        Outbox appender = outbox(producerPool, table, null);
                        open.add(appender);
                        if (variant.equals(TX_REMOTE)) {
                            open.add(new RemoteRelay(
                                    Pg.URL,
                                    Pg.USER,
                                    pg.schema,
                                    // Qualified: the notification channel is named after the schema too, as
                                    // the producers' is; unqualified, the child listened on another channel.
                                    table,
                                    RELAY_BATCH,
                                    current));
                        } else {
                            open.add(startRelay(appender, current));
                        }
                        produce = () -> {
                            OutboxEvent e = event();
                            try (Connection c = producerPool.getConnection()) {
                                c.setAutoCommit(false);
                                business(c, businessInsert);
                                appender.append(c, e);
                                c.commit();
                            }
                            appender.committed();
                            return e.id();
                        };
                    }
                    default -> {
                        Peer peer = new Peer(producerPool, Sink.NOOP, proxy(current), true);
                        peer.startFlushing(1);
                        open.add(peer);
                        produce = () -> {
                            UUID id = UUID.randomUUID();
                            long n = seq.incrementAndGet();
                            peer.transactions.inTransactionThrows(t -> {
                                business(t.connection(), businessInsert);
                                peer.schedule(id, "order-" + n, payload(n));
                            });
                            return id;
                        };
                    }
                }
                boolean confirming = !variant.equals(CEILING);
                try {
                    warmUp(producers, produce, current, confirming);
                    List<Integer> rates = new ArrayList<>(sizes.w2Rates());
                    int fixed = rates.size();
                    boolean belowCeiling = confirming && ceilingRate > 0;
                    rates.addAll(belowCeiling ? searchUpTo(ceilingRate) : sizes.w2Search());
                    if (belowCeiling) {
                        halfCeiling(variant, HALF_CEILING, ceilingRate, producers, produce, current);
                    }
                    int bestRate = 0;
                    for (int i = 0; i < rates.size(); i++) {
                        int rate = rates.get(i);
                        rec = new Recorder(true);
                        current.set(rec);
                        Level level = openLoop(rate, producers, produce, rec, confirming);
                        if (level.sustainable()) {
                            bestRate = Math.max(bestRate, rate);
                        }
                        if (i < fixed) {
                            report(variant, rate + "/s", level, confirming);
                        } else if (!level.sustainable()) {
                            results.add(
                                    "W2",
                                    "search " + rate + "/s",
                                    variant,
                                    "unsustained",
                                    level.achieved(),
                                    "events/s",
                                    level.why());
                            break;
                        } else {
                            report(variant, "search " + rate + "/s", level, confirming);
                        }
                    }
                    results.add(
                            "W2",
                            "highest sustainable",
                            variant,
                            "rate",
                            bestRate,
                            "events/s",
                            "of " + rates
                                    + (confirming
                                            ? "; sustained = producers reach 95% of the rate and end <= 500 ms late, every"
                                                    + " event confirmed within 5 s, p99 <= 500 ms"
                                            : "; producers alone: they reach 95% of the rate and end <= 500 ms late"));
                    if (!confirming) {
                        ceilingRate = bestRate;
                    } else if (belowCeiling) {
                        halfCeiling(variant, HALF_CEILING_AGAIN, ceilingRate, producers, produce, current);
                    }
                } finally {
                    for (int i = open.size() - 1; i >= 0; i--) {
                        open.get(i).close();
                    }
                }
            } finally {
                producers.shutdownNow();
            }
            pg.exec("DROP TABLE IF EXISTS " + table);
            pg.exec("DROP FUNCTION IF EXISTS " + table + "_notify()");
            pg.exec("DROP FUNCTION IF EXISTS " + table + "_wake()");
            dropPeerTables();
        }
        pg.exec("DROP TABLE " + orders);
    }

    /** W2's cell at half the producers-alone ceiling of this run. */
    static final String HALF_CEILING = "half the ceiling";

    /**
     * W2's cell at half the ceiling measured again after the search, with the same relay and table: the first
     * cell follows only the warm-up, this one every level, so the two together tell a start-up tail from a
     * steady one.
     */
    static final String HALF_CEILING_AGAIN = "half the ceiling, after the search";

    /**
     * The search rates of a variant with a relay: the fixed ones below the producers-alone ceiling of this
     * run, then 90% of it and the ceiling itself (no variant with a relay can go past the producers alone).
     */
    private List<Integer> searchUpTo(int ceiling) {
        java.util.TreeSet<Integer> rates = new java.util.TreeSet<>();
        for (int rate : sizes.w2Search()) {
            if (rate < ceiling) {
                rates.add(rate);
            }
        }
        rates.add(Math.max(1, ceiling * 9 / 10 / 100 * 100));
        rates.add(ceiling);
        return new ArrayList<>(rates);
    }

    /** Runs one level at half the ceiling and reports its rate, latencies and worst latency. */
    private void halfCeiling(
            String variant,
            String scenario,
            int ceiling,
            ExecutorService producers,
            Produce produce,
            AtomicReference<Recorder> current)
            throws Exception {
        int half = Math.max(1, ceiling / 2);
        Recorder rec = new Recorder(true);
        current.set(rec);
        Level level = openLoop(half, producers, produce, rec, true);
        results.add(
                "W2",
                scenario,
                variant,
                "rate",
                half,
                "events/s",
                "half the producers-alone ceiling of this run (" + ceiling + " events/s)");
        report(variant, scenario, level, true);
        results.add("W2", scenario, variant, "max", level.latencies().getMaxValue() / 1000.0, "ms", "");
    }

    private Relay startRelay(Outbox outbox, AtomicReference<Recorder> current) {
        Relay relay = outbox.relay(noopPublisher(current))
                .name("w2")
                .batchSize(RELAY_BATCH)
                .listener(counting(current))
                .build();
        relay.start();
        return relay;
    }

    @FunctionalInterface
    interface Produce {
        UUID run() throws Exception;
    }

    record Level(
            double achieved, Histogram latencies, long committed, long confirmed, boolean sustainable, String why) {}

    private void report(String variant, String scenario, Level level, boolean confirming) {
        if (!confirming) {
            results.add("W2", scenario, variant, "achieved", level.achieved(), "events/s", "producers alone");
            return;
        }
        Histogram h = level.latencies();
        results.add("W2", scenario, variant, "p50", h.getValueAtPercentile(50) / 1000.0, "ms", "");
        results.add("W2", scenario, variant, "p99", h.getValueAtPercentile(99) / 1000.0, "ms", "");
        results.add("W2", scenario, variant, "p99.9", h.getValueAtPercentile(99.9) / 1000.0, "ms", "");
        results.add(
                "W2",
                scenario,
                variant,
                "achieved",
                level.achieved(),
                "events/s",
                level.confirmed() + " of " + level.committed() + " confirmed"
                        + (level.sustainable() ? "" : "; " + level.why()));
    }

    /** Schedules one transaction every 1/rate seconds, whatever the previous ones do (open loop). */
    /**
     * W2's warm-up of a variant, not reported: as long as a level ({@code w2Seconds}), producers at the first
     * fixed rate, so that the first measured level does not also measure a cold JVM, fresh pool connections and the
     * first plans of the statements (as the probes skipped their first 2 s).
     */
    private void warmUp(
            ExecutorService producers, Produce produce, AtomicReference<Recorder> current, boolean confirming)
            throws Exception {
        Recorder rec = new Recorder(true);
        current.set(rec);
        openLoop(sizes.w2Rates().get(0), producers, produce, rec, confirming);
    }

    private Level openLoop(int rate, ExecutorService producers, Produce produce, Recorder rec, boolean confirming)
            throws Exception {
        long n = (long) rate * sizes.w2Seconds();
        long period = TimeUnit.SECONDS.toNanos(1) / rate;
        AtomicLong done = new AtomicLong();
        AtomicLong lastCommit = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (long i = 0; i < n; i++) {
            parkUntil(start + i * period);
            producers.execute(() -> {
                try {
                    UUID id = produce.run();
                    rec.committed(id);
                    lastCommit.accumulateAndGet(System.nanoTime(), Math::max);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.incrementAndGet();
                }
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (done.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        // Producers kept up when the last commit came soon after the last scheduled start.
        long lag = lastCommit.get() - (start + (n - 1) * period);
        double achieved = rec.commits() / (Math.max(n * period, lastCommit.get() - start) / 1e9);
        long confirmDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long confirmed = rec.commits();
        while (confirming
                && (confirmed = rec.confirmedOfCommitted()) < rec.commits()
                && System.nanoTime() < confirmDeadline) {
            Thread.sleep(20);
        }
        Histogram h = rec.latencies();
        String why = "";
        if (achieved < 0.95 * rate || lag > TimeUnit.MILLISECONDS.toNanos(500)) {
            why = "producers reached " + Math.round(achieved) + "/s, ending " + lag / 1_000_000 + " ms late";
        } else if (confirmed < rec.commits()) {
            why = (rec.commits() - confirmed) + " events unconfirmed 5 s after the last commit";
        } else if (h.getValueAtPercentile(99) > 500_000) {
            why = "p99 " + h.getValueAtPercentile(99) / 1000 + " ms";
        }
        // Let a lagging relay finish before the next level, so levels do not overlap.
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (confirming && rec.confirmedOfCommitted() < rec.commits() && System.nanoTime() < settle) {
            Thread.sleep(50);
        }
        return new Level(achieved, h, rec.commits(), confirmed, why.isEmpty(), why);
    }

    // ---------------------------------------------------------------- W3, W4, W5, ordered

    /** How a drain differs from the plain one (no-op publisher, table analyzed after loading). */
    enum Drain {
        /** To the real Kafka broker instead of the no-op publisher. */
        KAFKA,
        /** Another connection holds a REPEATABLE READ snapshot open for the whole drain. */
        HOLD_HORIZON,
        /** txoutbox in ordered mode ({@code DeadHeadPolicy.BLOCK}). */
        ORDERED,
        /**
         * The table is loaded and never analyzed (this server runs with autovacuum off), and txoutbox's relay
         * is restarted on new connections when half the backlog is drained: a new connection plans its
         * statements again, against a table whose size the planner now guesses differently.
         */
        NEVER_ANALYZED,
        /** txoutbox's relay pipelines: {@link #PIPELINE} batches claimed and not yet marked at the most. */
        PIPELINED
    }

    /** The batches in flight of a pipelined relay (W4's pipelined Kafka cell, W6). */
    static final int PIPELINE = 4;

    /** W4's Kafka drain with pipelining. */
    static final String KAFKA_PIPELINED = "Kafka, " + PIPELINE + " batches in flight";

    /** EXP: W4's no-op drain again, beside the same drain with pipelining, in one run. */
    static final String W4_AGAIN = "W4's backlog, no-op";

    /** EXP: {@link #W4_AGAIN} with {@link #PIPELINE} batches in flight. */
    static final String W4_PIPELINED = "W4's backlog, no-op, " + PIPELINE + " batches in flight";

    /** The workloads whose drains also report the shared buffers they touched per 1,000 events. */
    private static final List<String> DIAGNOSED = List.of("W4", "W5", "ORD");

    /** W4's no-op drain on a never-analyzed table. */
    static final String NEVER_ANALYZED = "no-op, never analyzed";

    /** ORD's drain, on an analyzed table. */
    static final String ORDERED = "ordered (BLOCK)";

    /** ORD's drain on a never-analyzed table. */
    static final String ORDERED_NEVER_ANALYZED = "ordered (BLOCK), never analyzed";

    /** 1, 2 and 4 relays on one table at saturation. */
    void w3() throws Exception {
        for (int relays : new int[] {1, 2, 4}) {
            String scenario = relays + " relay" + (relays > 1 ? "s" : "");
            drain("W3", scenario, RAW, sizes.w3Backlog(), relays);
            drain("W3", scenario, TXOUTBOX, sizes.w3Backlog(), relays);
            drain("W3", scenario, PEER, sizes.peerBacklog(), relays);
        }
        for (String v : List.of(RAW, TXOUTBOX, PEER)) {
            double one = results.get("W3", "1 relay", v, "drain");
            for (int relays : new int[] {2, 4}) {
                results.add(
                        "W3",
                        relays + " relays",
                        v,
                        "scaling",
                        results.get("W3", relays + " relays", v, "drain") / one,
                        "x",
                        "drain rate / 1 relay");
            }
        }
    }

    /**
     * The backlog drained to a no-op publisher and to Kafka, on a table analyzed after loading; then the
     * no-op drain on a table never analyzed (txoutbox, and raw SQL for reference).
     */
    void w4() throws Exception {
        int n = sizes.w4Backlog();
        for (String v : List.of(RAW, TXOUTBOX, PEER)) {
            drain("W4", "no-op", v, v.equals(PEER) ? sizes.peerBacklog() : n, 1);
        }
        for (String v : List.of(RAW, TXOUTBOX, PEER)) {
            drain("W4", "Kafka", v, v.equals(PEER) ? sizes.peerBacklog() : n, 1, Drain.KAFKA);
        }
        drain("W4", KAFKA_PIPELINED, TXOUTBOX, n, 1, Drain.KAFKA, Drain.PIPELINED);
        new DrainRounds(this, results, "W4").run(n);
        ofCeiling("W4", "no-op", "no-op", "txoutbox / raw SQL");
        results.add(
                "W4",
                "Kafka",
                TXOUTBOX,
                "vs raw SQL",
                results.get("W4", "Kafka", TXOUTBOX, "drain") / results.get("W4", "Kafka", RAW, "drain"),
                "x",
                "txoutbox / raw SQL with the same Kafka producer");
        results.add(
                "W4",
                KAFKA_PIPELINED,
                TXOUTBOX,
                "vs raw SQL",
                results.get("W4", KAFKA_PIPELINED, TXOUTBOX, "drain") / results.get("W4", "Kafka", RAW, "drain"),
                "x",
                "txoutbox with maxInFlightBatches(" + PIPELINE + ") / raw SQL with the same Kafka producer");
        for (String v : List.of(RAW, TXOUTBOX)) {
            drain("W4", NEVER_ANALYZED, v, n, 1, Drain.NEVER_ANALYZED);
            vsAnalyzed("W4", NEVER_ANALYZED, "no-op", v);
        }
    }

    /** Adds txoutbox's drain in {@code scenario} as a share of raw SQL's in {@code ceiling}: "of ceiling", %. */
    private void ofCeiling(String workload, String scenario, String ceiling, String note) {
        results.add(
                workload,
                scenario,
                TXOUTBOX,
                "of ceiling",
                100 * results.get(workload, scenario, TXOUTBOX, "drain") / results.get(workload, ceiling, RAW, "drain"),
                "%",
                note);
    }

    private void vsAnalyzed(String workload, String neverAnalyzed, String analyzed, String variant) {
        results.add(
                workload,
                neverAnalyzed,
                variant,
                "vs analyzed",
                100
                        * results.get(workload, neverAnalyzed, variant, "drain")
                        / results.get(workload, analyzed, variant, "drain"),
                "%",
                "never analyzed / analyzed (" + analyzed + ")");
    }

    /** W4 no-op while another transaction holds a snapshot open. */
    void w5() throws Exception {
        for (String v : List.of(RAW, TXOUTBOX)) {
            drain("W5", "held horizon", v, sizes.w4Backlog(), 1, Drain.HOLD_HORIZON);
            results.add(
                    "W5",
                    "held horizon",
                    v,
                    "vs W4",
                    100 * results.get("W5", "held horizon", v, "drain") / results.get("W4", "no-op", v, "drain"),
                    "%",
                    "drain with the horizon held / W4 no-op");
        }
    }

    /** Ordered mode against unordered, on W4's no-op backlog (1,000 aggregates), analyzed and never analyzed. */
    void ordered() throws Exception {
        drain("ORD", ORDERED, TXOUTBOX, sizes.w4Backlog(), 1, Drain.ORDERED);
        results.add(
                "ORD",
                ORDERED,
                TXOUTBOX,
                "vs unordered",
                100 * results.get("ORD", ORDERED, TXOUTBOX, "drain") / results.get("W4", "no-op", TXOUTBOX, "drain"),
                "%",
                "ordered / W4 unordered no-op");
        drain("ORD", ORDERED_NEVER_ANALYZED, TXOUTBOX, sizes.w4Backlog(), 1, Drain.ORDERED, Drain.NEVER_ANALYZED);
        vsAnalyzed("ORD", ORDERED_NEVER_ANALYZED, ORDERED, TXOUTBOX);
    }

    /**
     * Measures where txoutbox's drain cost goes. First W4's backlog again, raw SQL beside the default relay
     * and a pipelined one ({@link #PIPELINE} batches in flight), in one run: how much of the gap is the
     * claim and the mark waiting for each other. Then, with raw SQL and table settings a user controls,
     * its statement pattern (lease UPDATE then DELETE) against the single DELETE of the ceiling, and the
     * DDL's fillfactor 50, which leaves room on each page so that the lease UPDATE can be HOT (no index
     * entries), against the fillfactor 90 the DDL had before. Those on W3's backlog with one consumer;
     * compare with W3's "1 relay" rows.
     */
    void experiments() throws Exception {
        // How much of the no-op drain's gap to raw SQL is round trips taken one after the other: the default
        // relay claims, publishes and marks in turn, a pipelined one claims the next batch meanwhile.
        int m = sizes.w4Backlog();
        for (String v : List.of(RAW, TXOUTBOX)) {
            drain("EXP", W4_AGAIN, v, m, 1);
        }
        drain("EXP", W4_PIPELINED, TXOUTBOX, m, 1, Drain.PIPELINED);
        for (String scenario : List.of(W4_AGAIN, W4_PIPELINED)) {
            ofCeiling("EXP", scenario, W4_AGAIN, "txoutbox / raw SQL, the same run");
        }
        int n = sizes.w3Backlog();
        drain("EXP", "fillfactor 50 (DDL)", RAW_LEASE, n, 1);
        fillfactor = 90;
        try {
            for (String v : List.of(RAW, RAW_LEASE, TXOUTBOX)) {
                drain("EXP", "fillfactor 90 (before)", v, n, 1);
            }
        } finally {
            fillfactor = 0;
        }
    }

    void drain(String workload, String scenario, String variant, int backlog, int consumers, Drain... how)
            throws Exception {
        java.util.Set<Drain> options = java.util.EnumSet.noneOf(Drain.class);
        options.addAll(List.of(how));
        boolean toKafka = options.contains(Drain.KAFKA);
        Recorder rec = new Recorder(false);
        String topic = "txbench-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
        if (toKafka) {
            kafka.get().createTopic(topic, 4);
        }
        boolean peer = variant.equals(PEER);
        String table = peer ? pg.table("txno_outbox") : freshOutboxTable(workload.toLowerCase() + "_outbox");
        Duration cap = peer
                ? sizes.peerCap()
                : options.contains(Drain.HOLD_HORIZON) || options.contains(Drain.ORDERED)
                        ? sizes.slowCap()
                        : sizes.drainCap();
        boolean diagnose = !peer && DIAGNOSED.contains(workload);
        Drained drained;
        Pg.Buffers before = null;
        try {
            try (HikariDataSource pool = pg.pool("drain", 4 + 3 * consumers)) {
                List<AutoCloseable> open = new ArrayList<>();
                try {
                    Sink sink = toKafka
                            ? new KafkaSink(kafka.get().bootstrapServers(), topic, peer ? 0 : LINGER_MS)
                            : Sink.NOOP;
                    open.add(sink);
                    Peer[] peers = new Peer[consumers];
                    if (peer) {
                        for (int i = 0; i < consumers; i++) {
                            peers[i] = new Peer(pool, sink, rec, true);
                            open.add(peers[i]);
                        }
                        pg.exec("TRUNCATE " + table);
                        peers[0].load(pg, pool, backlog);
                        long loaded = pg.count(table);
                        if (loaded != backlog) {
                            throw new IllegalStateException(
                                    "the peer's backlog has " + loaded + " entries, not " + backlog);
                        }
                    } else {
                        if (fillfactor > 0) {
                            pg.exec("ALTER TABLE " + table + " SET (fillfactor = " + fillfactor + ")");
                        }
                        pg.loadOutbox(table, backlog, !options.contains(Drain.NEVER_ANALYZED));
                        before = diagnose ? pg.buffers(table) : null;
                    }
                    drained = drainWith(
                            pool, open, sink, variant, backlog, consumers, options, rec, topic, table, cap, peers);
                } finally {
                    // Consumers first, while their pool is open.
                    Collections.reverse(open);
                    for (AutoCloseable c : open) {
                        c.close();
                    }
                }
            }
            String note = drained.note() + (consumers > 1 ? ", " + consumers + " consumers" : "");
            if (!peer) {
                long analyzes = pg.analyzeCount(table);
                note += options.contains(Drain.NEVER_ANALYZED)
                        ? analyzes == 0
                                ? "; never analyzed (pg_stat_user_tables: 0 analyzes by the end)"
                                : "; ANALYZED " + analyzes + " times by the end: not a never-analyzed table"
                        : "; analyzed after loading";
            }
            results.add(workload, scenario, variant, "drain", drained.rate(), "events/s", note);
            if (before != null) {
                // The pool is closed: its backends have exited and flushed their counters.
                Pg.Buffers used = pg.buffers(table).minus(before);
                double perThousand = 1000.0 * used.total() / Math.max(1, drained.events());
                results.add(
                        workload,
                        scenario,
                        variant,
                        "buffers/1k events",
                        perThousand,
                        "buffers",
                        String.format(
                                java.util.Locale.ROOT,
                                "shared buffers hit or read in the table (pg_statio_user_tables) per 1,000 events"
                                        + " drained: heap %.0f, indexes %.0f",
                                1000.0 * used.heap() / Math.max(1, drained.events()),
                                1000.0 * used.index() / Math.max(1, drained.events())));
            }
        } finally {
            if (toKafka) {
                kafka.get().deleteTopic(topic);
            }
            pg.exec("DROP TABLE IF EXISTS " + table);
            if (peer) {
                dropPeerTables();
            }
        }
    }

    /** What a drain did: events confirmed (at most the backlog) in how many seconds, said in words. */
    private record Drained(long events, double seconds, String note) {
        double rate() {
            return events / seconds;
        }
    }

    private Drained drainWith(
            HikariDataSource pool,
            List<AutoCloseable> open,
            Sink sink,
            String variant,
            int backlog,
            int consumers,
            java.util.Set<Drain> options,
            Recorder rec,
            String topic,
            String table,
            Duration cap,
            Peer[] peers)
            throws Exception {
        Connection holder = options.contains(Drain.HOLD_HORIZON)
                ? Pg.holdSnapshot(java.sql.DriverManager.getConnection(Pg.URL, Pg.USER, null))
                : null;
        if (holder != null) {
            open.add(holder);
        }
        boolean restart = variant.equals(TXOUTBOX) && options.contains(Drain.NEVER_ANALYZED);
        List<AutoCloseable> relays = new ArrayList<>();
        long start = System.nanoTime();
        switch (variant) {
            case RAW -> open.add(new RawRelay(pool, table, channel(table), RAW_BATCH, sink, rec).start(consumers));
            case RAW_LEASE ->
                open.add(new RawRelay(pool, table, channel(table), RAW_BATCH, sink, rec)
                        .leaseThenDelete()
                        .start(consumers));
            case TXOUTBOX -> startRelays(restart ? null : pool, relays, consumers, options, rec, topic, table);
            default -> {
                for (Peer p : peers) {
                    p.startFlushing(1);
                }
            }
        }
        long deadline = start + cap.toNanos();
        long restartedAt = 0;
        long restartedWith = 0;
        try {
            while (rec.confirmed.sum() < backlog && System.nanoTime() < deadline) {
                Thread.sleep(10);
                for (AutoCloseable c : open) {
                    if (c instanceof RawRelay r) {
                        r.check();
                    }
                }
                if (restart && restartedAt == 0 && rec.confirmed.sum() >= backlog / 2) {
                    close(relays);
                    restartedAt = System.nanoTime();
                    restartedWith = rec.confirmed.sum();
                    startRelays(null, relays, consumers, options, rec, topic, table);
                }
            }
        } finally {
            close(relays);
        }
        long end = System.nanoTime();
        double seconds = (end - start) / 1e9;
        long drained = Math.min(rec.confirmed.sum(), backlog);
        String note = drained < backlog
                ? String.format(java.util.Locale.ROOT, "capped at %.0f s: %d of %d drained", seconds, drained, backlog)
                : String.format(java.util.Locale.ROOT, "%d events in %.1f s", backlog, seconds);
        if (restartedAt > 0) {
            note += String.format(
                    java.util.Locale.ROOT,
                    "; relay restarted on new connections after %d events: %.0f events/s before, %.0f after",
                    restartedWith,
                    restartedWith / ((restartedAt - start) / 1e9),
                    (drained - restartedWith) / ((end - restartedAt) / 1e9));
        }
        return new Drained(drained, seconds, note);
    }

    /**
     * Starts txoutbox's relays, each with its own publisher, adding what it opened to {@code opened}; with no
     * pool, on a pool of their own (opened too), so that closing them closes their connections.
     */
    private void startRelays(
            HikariDataSource pool,
            List<AutoCloseable> opened,
            int consumers,
            java.util.Set<Drain> options,
            Recorder rec,
            String topic,
            String table) {
        HikariDataSource ds = pool;
        if (ds == null) {
            ds = pg.pool("drain-relay", 4 + 3 * consumers);
            opened.add(ds);
        }
        Outbox outbox = outbox(ds, table, options.contains(Drain.ORDERED) ? DeadHeadPolicy.BLOCK : null);
        opened.add(outbox);
        Publisher publisher = options.contains(Drain.KAFKA)
                ? KafkaPublisher.builder()
                        .bootstrapServers(kafka.get().bootstrapServers())
                        .router(Router.fixed(topic))
                        .producerProperty("linger.ms", LINGER_MS)
                        .producerProperty("batch.size", 256 * 1024)
                        .build()
                : noopPublisher(new AtomicReference<>(rec));
        opened.add(publisher);
        for (int i = 0; i < consumers; i++) {
            Relay.Builder builder = outbox.relay(publisher)
                    .name("drain-" + i)
                    .batchSize(RELAY_BATCH)
                    .listener(counting(new AtomicReference<>(rec)));
            if (options.contains(Drain.PIPELINED) || inFlight > 0) {
                builder.maxInFlightBatches(options.contains(Drain.PIPELINED) ? PIPELINE : inFlight);
            }
            Relay relay = builder.build();
            relay.start();
            opened.add(relay);
        }
    }

    /** Closes in reverse order of opening and forgets them. */
    private static void close(List<AutoCloseable> opened) throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    // ---------------------------------------------------------------- helpers

    /** The peer's table and its migration record go together: it re-creates both when both are gone. */
    private void dropPeerTables() {
        pg.exec("DROP TABLE IF EXISTS " + pg.table("txno_outbox") + ", " + pg.table("txno_version"));
    }

    private String freshOutboxTable(String name) {
        String table = pg.table(name);
        pg.exec("DROP TABLE IF EXISTS " + table);
        outbox(pg.admin(), table, null).createSchema();
        return table;
    }

    private static Outbox outbox(javax.sql.DataSource ds, String table, DeadHeadPolicy ordered) {
        Outbox.Builder b =
                Outbox.builder(ds).table(table).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true);
        if (ordered != null) {
            b.ordered(ordered);
        }
        return b.build();
    }

    private static String channel(String table) {
        return OutboxTable.of(table).channel();
    }

    private static Publisher noopPublisher(AtomicReference<Recorder> rec) {
        return batch -> {
            Recorder r = rec.get();
            for (ClaimedEvent e : batch) {
                r.confirm(e.id());
            }
            return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
        };
    }

    private static RelayListener counting(AtomicReference<Recorder> rec) {
        return new RelayListener() {
            @Override
            public void onBatch(BatchReport report) {
                rec.get().confirmedCount(report.count(Outcome.PUBLISHED));
            }
        };
    }

    /** A recorder that forwards to whichever recorder is current (W2 swaps them between rates). */
    private static Recorder proxy(AtomicReference<Recorder> current) {
        return new Recorder(false) {
            @Override
            void confirm(UUID id) {
                current.get().confirm(id);
            }

            @Override
            void confirmedCount(long n) {
                current.get().confirmedCount(n);
            }
        };
    }
}
