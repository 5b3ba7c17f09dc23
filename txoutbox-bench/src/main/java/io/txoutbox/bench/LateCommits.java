package io.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * LATE: commit-to-confirmation lateness of rows that commit behind the relay's cursor, with the relay in
 * another JVM ({@link RemoteRelayMain}, woken only through the database). Open-loop producers at a steady
 * rate under half the producers-alone ceiling measured first in the same run, plus one transaction a second
 * that appends at once and commits {@link #HOLD_MILLIS} ms later, while newer rows are published. Three
 * kinds: txoutbox appenders ({@code committed()} after commit); a foreign writer (plain SQL {@code INSERT}
 * with {@code now()}, the foreign-writer trigger on); and the txoutbox appenders on a table whose due index
 * starts with {@link #DEAD_ROWS} deleted rows, not vacuumed, under a held snapshot. Each kind runs with the
 * relay of this build and with its look-behind turned off (hints ignored, no near look-behind: the relay
 * before it), the dead-entries kind also with the relay whose claims started at the bottom until one found
 * a row (each walking every dead entry), the order of the variants rotating by round. Lateness per class of event (steady, held)
 * pooled over the rounds.
 */
final class LateCommits {
    static final String WORKLOAD = "LATE";
    static final String LOOK_BEHIND = "txoutbox (hints, look-behind)";
    static final String AS_BEFORE = "txoutbox, look-behind off (as main)";
    /** The dead-entries kind only: the relay before its first empty claim left a cursor. */
    static final String NO_EMPTY_CURSOR = "txoutbox, claims from the bottom until one finds a row (before)";

    static final String APPENDERS = "txoutbox appenders";
    static final String FOREIGN = "foreign writer, trigger";
    static final String DEAD = "txoutbox appenders, dead entries";
    static final long HOLD_MILLIS = 1_500;
    static final int DEAD_ROWS = 300_000;
    static final long TARGET_MICROS = 250_000;

    private final Pg pg;
    private final Results results;
    private final boolean smoke;
    private final AtomicLong seq = new AtomicLong();

    LateCommits(Pg pg, Sizes sizes, Results results) {
        this.pg = pg;
        this.results = results;
        this.smoke = sizes == Sizes.SMOKE;
    }

    /** Lateness of one class of events in one kind and variant, pooled over rounds. */
    private static final class Pooled {
        final Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        final List<Long> roundMax = new ArrayList<>();
        long over;
        long unconfirmed;
    }

    void run() throws Exception {
        double ceiling = producersAlone();
        // Under half the ceiling whatever the machine does meanwhile: a loaded machine gets a low rate, not an
        // overload.
        int rate = (int) Math.max(10, Math.min(1_000, Math.floor(0.45 * ceiling / 10) * 10));
        results.add(
                WORKLOAD,
                "producers alone",
                "no relay",
                "ceiling",
                ceiling,
                "events/s",
                "8 threads, closed loop, one txoutbox append per transaction; the cells run at " + rate
                        + "/s (under half of it)");
        int rounds = smoke ? 1 : 3;
        int seconds = smoke ? 2 : 10;
        Map<String, Pooled> pooled = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String kind : List.of(APPENDERS, FOREIGN, DEAD)) {
                List<String> order = new ArrayList<>(
                        kind.equals(DEAD)
                                ? List.of(LOOK_BEHIND, AS_BEFORE, NO_EMPTY_CURSOR)
                                : List.of(LOOK_BEHIND, AS_BEFORE));
                Collections.rotate(order, round);
                for (String variant : order) {
                    cell(kind, variant, rate, seconds, pooled);
                }
            }
        }
        for (String kind : List.of(APPENDERS, FOREIGN, DEAD)) {
            for (String variant : List.of(LOOK_BEHIND, AS_BEFORE, NO_EMPTY_CURSOR)) {
                for (String events : List.of("held", "steady")) {
                    Pooled p = pooled.get(kind + "|" + variant + "|" + events);
                    if (p == null) {
                        continue;
                    }
                    String scenario = kind + ", " + events + " events";
                    results.add(WORKLOAD, scenario, variant, "p50", p.h.getValueAtPercentile(50) / 1000.0, "ms", "");
                    results.add(WORKLOAD, scenario, variant, "p99", p.h.getValueAtPercentile(99) / 1000.0, "ms", "");
                    results.add(
                            WORKLOAD,
                            scenario,
                            variant,
                            "max",
                            p.h.getMaxValue() / 1000.0,
                            "ms",
                            "max per round "
                                    + p.roundMax.stream()
                                            .map(m -> m / 1000 + " ms")
                                            .toList());
                    results.add(
                            WORKLOAD,
                            scenario,
                            variant,
                            "over 250 ms",
                            p.over,
                            "events",
                            "of " + p.h.getTotalCount() + " at " + rate + "/s, " + rounds + " rounds of " + seconds
                                    + " s" + (p.unconfirmed > 0 ? "; " + p.unconfirmed + " unconfirmed" : ""));
                }
            }
        }
    }

    /** The machine's commit ceiling for these transactions: 8 threads appending as fast as they can. */
    private double producersAlone() throws Exception {
        String table = freshTable(false);
        try (HikariDataSource pool = pg.pool("late-ceiling", 9);
                Outbox outbox = Outbox.builder(pool)
                        .table(table)
                        .dialect(Dialect.POSTGRESQL)
                        .notifyAfterCommit(false)
                        .build()) {
            AtomicBoolean go = new AtomicBoolean(true);
            AtomicLong done = new AtomicLong();
            ExecutorService threads = Executors.newFixedThreadPool(8);
            long millis = smoke ? 1_000 : 3_000;
            try {
                for (int t = 0; t < 8; t++) {
                    threads.execute(() -> {
                        while (go.get()) {
                            try (Connection c = pool.getConnection()) {
                                c.setAutoCommit(false);
                                outbox.append(c, Workloads.event(seq.incrementAndGet()));
                                c.commit();
                                done.incrementAndGet();
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    });
                }
                Thread.sleep(500);
                long before = done.get();
                long t0 = System.nanoTime();
                Thread.sleep(millis);
                return (done.get() - before) / ((System.nanoTime() - t0) / 1e9);
            } finally {
                go.set(false);
                threads.shutdown();
                threads.awaitTermination(10, TimeUnit.SECONDS);
            }
        } finally {
            drop(table);
        }
    }

    private void cell(String kind, String variant, int rate, int seconds, Map<String, Pooled> pooled) throws Exception {
        boolean foreign = kind.equals(FOREIGN);
        String table = freshTable(foreign);
        Connection snapshot = null;
        RemoteRelay relay = null;
        Map<UUID, Long> steady = new ConcurrentHashMap<>();
        Map<UUID, Long> held = new ConcurrentHashMap<>();
        Map<UUID, Long> confirms = new ConcurrentHashMap<>();
        ExecutorService producers = Executors.newFixedThreadPool(8);
        ExecutorService holders = Executors.newFixedThreadPool(3);
        try {
            if (kind.equals(DEAD)) {
                pg.loadOutbox(table, smoke ? 2_000 : DEAD_ROWS, false);
                // The snapshot sees every row deleted next: neither vacuum nor index scans can drop their entries.
                snapshot = Pg.holdSnapshot(DriverManager.getConnection(Pg.URL, Pg.USER, null));
                pg.exec("DELETE FROM " + table);
            }
            try (HikariDataSource pool = pg.pool("late-producers", 12);
                    Outbox outbox = Outbox.builder(pool)
                            .table(table)
                            .dialect(Dialect.POSTGRESQL)
                            .build()) {
                relay = new RemoteRelay(
                        switch (variant) {
                            case AS_BEFORE -> List.of("-Dtxoutbox.internal.look-behind=off");
                            case NO_EMPTY_CURSOR -> List.of("-Dtxoutbox.internal.empty-claim-cursor=off");
                            default -> List.of();
                        },
                        Pg.URL,
                        Pg.USER,
                        pg.schema,
                        table,
                        Workloads.RELAY_BATCH,
                        confirms::putIfAbsent);
                String byHand = "INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type,"
                        + " payload, created_at, available_at) VALUES (?, 'order', ?, 'order.placed', ?, now(), now())";
                Workloads.Produce steadyOne = () -> commit(pool, outbox, foreign, byHand, 0);
                Workloads.Produce heldOne = () -> commit(pool, outbox, foreign, byHand, HOLD_MILLIS);
                long warmup = TimeUnit.MILLISECONDS.toNanos(smoke ? 500 : 2_000);
                long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                long measureFrom = start + warmup;
                long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
                long period = TimeUnit.SECONDS.toNanos(1) / rate;
                AtomicReference<Exception> failure = new AtomicReference<>();
                long nextHeld = start;
                for (long i = 0; ; i++) {
                    long at = start + i * period;
                    if (at >= end) {
                        break;
                    }
                    Workloads.parkUntil(at);
                    if (at >= nextHeld) {
                        nextHeld += TimeUnit.SECONDS.toNanos(1);
                        holders.execute(() -> produce(heldOne, held, measureFrom, failure));
                    }
                    producers.execute(() -> produce(steadyOne, steady, measureFrom, failure));
                }
                producers.shutdown();
                holders.shutdown();
                producers.awaitTermination(60, TimeUnit.SECONDS);
                holders.awaitTermination(60, TimeUnit.SECONDS);
                if (failure.get() != null) {
                    throw failure.get();
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (System.nanoTime() < deadline
                        && !(confirms.keySet().containsAll(steady.keySet())
                                && confirms.keySet().containsAll(held.keySet()))) {
                    Thread.sleep(50);
                }
            }
            add(pooled.computeIfAbsent(kind + "|" + variant + "|steady", k -> new Pooled()), steady, confirms);
            add(pooled.computeIfAbsent(kind + "|" + variant + "|held", k -> new Pooled()), held, confirms);
        } finally {
            producers.shutdownNow();
            holders.shutdownNow();
            if (relay != null) {
                relay.close();
            }
            if (snapshot != null) {
                snapshot.close();
            }
            drop(table);
        }
    }

    private static void add(Pooled p, Map<UUID, Long> commits, Map<UUID, Long> confirms) {
        long max = 0;
        for (Map.Entry<UUID, Long> e : commits.entrySet()) {
            Long confirmedAt = confirms.get(e.getKey());
            if (confirmedAt == null) {
                p.unconfirmed++;
                continue;
            }
            long micros = Math.max(1, (confirmedAt - e.getValue()) / 1_000);
            micros = Math.min(micros, p.h.getHighestTrackableValue());
            p.h.recordValue(micros);
            max = Math.max(max, micros);
            if (micros > TARGET_MICROS) {
                p.over++;
            }
        }
        p.roundMax.add(max);
    }

    private static void produce(
            Workloads.Produce one, Map<UUID, Long> commits, long measureFrom, AtomicReference<Exception> failure) {
        try {
            UUID id = one.run();
            long committedAt = System.nanoTime();
            if (committedAt >= measureFrom) {
                commits.put(id, committedAt);
            }
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        }
    }

    /** One transaction of one event, held open {@code holdMillis} after its insert; returns its id. */
    private UUID commit(HikariDataSource pool, Outbox outbox, boolean foreign, String byHand, long holdMillis)
            throws Exception {
        long n = seq.incrementAndGet();
        UUID id;
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            if (foreign) {
                id = Ids.v7();
                try (PreparedStatement ps = c.prepareStatement(byHand)) {
                    ps.setObject(1, id);
                    ps.setString(2, "order-" + n);
                    ps.setBytes(3, Workloads.payload(n).getBytes(StandardCharsets.UTF_8));
                    ps.executeUpdate();
                }
            } else {
                OutboxEvent e = Workloads.event(n);
                outbox.append(c, e);
                id = e.id();
            }
            if (holdMillis > 0) {
                Thread.sleep(holdMillis);
            }
            c.commit();
        }
        if (!foreign) {
            outbox.committed();
        }
        return id;
    }

    private String freshTable(boolean trigger) {
        String table = pg.table("late_outbox");
        drop(table);
        Outbox.builder(pg.admin())
                .table(table)
                .dialect(Dialect.POSTGRESQL)
                .createSchemaIfMissing(true)
                .foreignWriterWakeups(trigger)
                .build()
                .close();
        return table;
    }

    private void drop(String table) {
        pg.exec("DROP TABLE IF EXISTS " + table);
        pg.exec("DROP FUNCTION IF EXISTS " + table + "_wake()");
    }
}
