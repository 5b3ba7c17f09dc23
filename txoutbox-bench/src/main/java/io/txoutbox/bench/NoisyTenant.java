package io.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.ClaimFairness;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * TENANT, the noisy tenant (issue 25, goal 4): a backlog of one tenant (1,000,000 events, loaded with
 * {@code INSERT … SELECT generate_series} and {@code VACUUM ANALYZE}) and an open-loop trickle of another
 * (50 events/s, one per transaction, through txoutbox's append and {@code committed()}). One relay with
 * the default settings and a no-op publisher. In alternating rounds: the trickle alone on an empty table
 * (fair claims), the trickle beside the backlog with claims oldest first, and with claims fair across
 * tenants; each reports the trickle's commit-to-confirmation p50/p99/max and the backlog's drain rate over
 * the same window. Also the append cost of the index fair claims need (closed loop, alternating).
 */
final class NoisyTenant {
    static final String WORKLOAD = "TENANT";
    private static final int TRICKLE_RATE = 50;

    private final Pg pg;
    private final Results results;
    private final int backlog;
    private final int windowSeconds;
    private final int rounds;

    NoisyTenant(Pg pg, Sizes sizes, Results results) {
        this.pg = pg;
        this.results = results;
        boolean smoke = sizes == Sizes.SMOKE;
        this.backlog = smoke ? 20_000 : 1_000_000;
        this.windowSeconds = smoke ? 3 : 20;
        this.rounds = smoke ? 1 : 3;
    }

    /** One round's figures. */
    private record Round(Histogram trickle, long unconfirmed, double drain) {}

    void run() throws Exception {
        String table = pg.table("tenant_noisy");
        pg.exec("DROP TABLE IF EXISTS " + table);
        Outbox.builder(pg.admin())
                .table(table)
                .dialect(Dialect.POSTGRESQL)
                .fairClaims(ClaimFairness.TENANT)
                .createSchemaIfMissing(true)
                .build()
                .close();
        List<Round> alone = new ArrayList<>();
        List<Round> unfair = new ArrayList<>();
        List<Round> fair = new ArrayList<>();
        try (HikariDataSource pool = pg.pool("txbench-tenant", 8)) {
            for (int i = 0; i < rounds; i++) {
                alone.add(round(pool, table, 0, ClaimFairness.TENANT));
                unfair.add(round(pool, table, backlog, null));
                fair.add(round(pool, table, backlog, ClaimFairness.TENANT));
            }
            report("trickle alone", "fair claims", alone, false);
            report("trickle + backlog", "oldest first", unfair, true);
            report("trickle + backlog", "fair claims", fair, true);
            List<Double> p99 = new ArrayList<>();
            List<Double> drain = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                p99.add(p99(fair.get(i)) / p99(alone.get(i)));
                drain.add(fair.get(i).drain() / unfair.get(i).drain());
            }
            results.add(
                    WORKLOAD,
                    "trickle + backlog",
                    "fair vs alone",
                    "p99 ratio",
                    median(p99),
                    "x",
                    "median of " + rounds + " paired rounds; target <= 2");
            results.add(
                    WORKLOAD,
                    "backlog drain",
                    "fair vs oldest first",
                    "drain ratio",
                    median(drain),
                    "x",
                    "median of " + rounds + " paired rounds; target >= 0.80");
            appendCost(pool);
        }
        pg.exec("DROP TABLE IF EXISTS " + table);
    }

    private Round round(HikariDataSource pool, String table, int backlogEvents, ClaimFairness fairness)
            throws Exception {
        pg.exec("TRUNCATE " + table);
        if (backlogEvents > 0) {
            load(table, backlogEvents);
        }
        Outbox outbox = Outbox.builder(pool)
                .table(table)
                .dialect(Dialect.POSTGRESQL)
                .fairClaims(fairness)
                .build();
        Map<UUID, Long> commits = new ConcurrentHashMap<>();
        Map<UUID, Long> confirms = new ConcurrentHashMap<>();
        LongAdder drained = new LongAdder();
        Relay relay = outbox.relay(batch -> {
                    long now = System.nanoTime();
                    for (ClaimedEvent e : batch) {
                        if ("small".equals(e.tenantId())) {
                            confirms.putIfAbsent(e.id(), now);
                        } else {
                            drained.increment();
                        }
                    }
                    return CompletableFuture.completedFuture(
                            Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
                })
                .name("tenant")
                .build();
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        try {
            relay.start();
            long started = System.nanoTime();
            trickle.scheduleAtFixedRate(
                    () -> {
                        OutboxEvent e = OutboxEvent.builder("order.placed")
                                .aggregate("order", "small-" + commits.size())
                                .tenant("small")
                                .jsonPayload("{\"orderId\":1}")
                                .build();
                        outbox.inTransaction(c -> outbox.append(c, e));
                        commits.put(e.id(), System.nanoTime());
                    },
                    0,
                    1_000_000 / TRICKLE_RATE,
                    TimeUnit.MICROSECONDS);
            Thread.sleep(windowSeconds * 1000L);
            trickle.shutdown();
            trickle.awaitTermination(5, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - started) / 1e9;
            double drain = drained.sum() / seconds;
            // The trickle's last events: a bounded wait, then the rest count as unconfirmed.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (confirms.size() < commits.size() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
            long unconfirmed = 0;
            for (Map.Entry<UUID, Long> c : commits.entrySet()) {
                Long at = confirms.get(c.getKey());
                if (at == null) {
                    unconfirmed++;
                } else {
                    h.recordValue(Math.max(1, Math.min((at - c.getValue()) / 1_000, h.getHighestTrackableValue())));
                }
            }
            System.out.printf(
                    "TENANT round backlog=%d fairness=%s: trickle p50 %.1f ms p99 %.1f ms max %.1f ms"
                            + " (%d of %d unconfirmed), drain %.0f events/s%n",
                    backlogEvents,
                    fairness,
                    h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0,
                    h.getMaxValue() / 1000.0,
                    unconfirmed,
                    commits.size(),
                    drain);
            return new Round(h, unconfirmed, drain);
        } finally {
            trickle.shutdownNow();
            relay.close();
            outbox.close();
        }
    }

    private void load(String table, int n) {
        try (Connection c = DriverManager.getConnection(Pg.URL, Pg.USER, null);
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload, headers,"
                    + " tenant_id, created_at, available_at) SELECT gen_random_uuid(), 'order', 'order-' || (g % 1000),"
                    + " 'order.placed', " + Pg.PAYLOAD_SQL + ", '{}'::jsonb, 'big', now(), now()"
                    + " FROM generate_series(1, " + n + ") g");
            s.execute("VACUUM ANALYZE " + table);
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + table + ": " + e.getMessage(), e);
        }
    }

    private void report(String scenario, String variant, List<Round> rounds, boolean withDrain) {
        Histogram all = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
        long unconfirmed = 0;
        List<Double> drains = new ArrayList<>();
        for (Round r : rounds) {
            all.add(r.trickle());
            unconfirmed += r.unconfirmed();
            drains.add(r.drain());
        }
        String note = rounds.size() + " rounds of " + windowSeconds + " s, " + TRICKLE_RATE + " events/s"
                + (unconfirmed > 0 ? "; " + unconfirmed + " trickle events unconfirmed 5 s after the window" : "");
        results.add(WORKLOAD, scenario, variant, "trickle p50", all.getValueAtPercentile(50) / 1000.0, "ms", note);
        results.add(WORKLOAD, scenario, variant, "trickle p99", all.getValueAtPercentile(99) / 1000.0, "ms", note);
        results.add(WORKLOAD, scenario, variant, "trickle max", all.getMaxValue() / 1000.0, "ms", note);
        if (withDrain) {
            results.add(
                    WORKLOAD,
                    scenario,
                    variant,
                    "drain",
                    median(drains),
                    "events/s",
                    "backlog of " + backlog + ", median of the rounds");
        }
    }

    /**
     * The cost of the index on {@code (tenant_id, available_at, seq)} on append: 8 threads, one event per
     * transaction, into a table with and without it, alternating.
     */
    private void appendCost(HikariDataSource pool) throws Exception {
        String with = pg.table("tenant_append_idx");
        String without = pg.table("tenant_append_plain");
        for (String t : List.of(with, without)) {
            pg.exec("DROP TABLE IF EXISTS " + t);
        }
        Outbox.builder(pg.admin())
                .table(with)
                .dialect(Dialect.POSTGRESQL)
                .fairClaims(ClaimFairness.TENANT)
                .createSchemaIfMissing(true)
                .build()
                .close();
        Outbox.builder(pg.admin())
                .table(without)
                .dialect(Dialect.POSTGRESQL)
                .createSchemaIfMissing(true)
                .build()
                .close();
        List<Double> ratios = new ArrayList<>();
        double sumWith = 0;
        double sumWithout = 0;
        int pairs = rounds == 1 ? 1 : 5;
        for (int i = 0; i < pairs; i++) {
            double a = appendRate(pool, without);
            double b = appendRate(pool, with);
            sumWith += b;
            sumWithout += a;
            ratios.add(b / a);
        }
        results.add(
                WORKLOAD,
                "append, 8 threads, 1 event/tx",
                "without the index",
                "append",
                sumWithout / pairs,
                "events/s",
                "mean of " + pairs + " rounds");
        results.add(
                WORKLOAD,
                "append, 8 threads, 1 event/tx",
                "with the fair index",
                "append",
                sumWith / pairs,
                "events/s",
                "mean of " + pairs + " rounds");
        results.add(
                WORKLOAD,
                "append, 8 threads, 1 event/tx",
                "with vs without",
                "append ratio",
                median(ratios),
                "x",
                "median of " + pairs + " paired alternating rounds of 5 s; the index is created only with fairClaims");
        for (String t : List.of(with, without)) {
            pg.exec("DROP TABLE IF EXISTS " + t);
        }
    }

    private double appendRate(HikariDataSource pool, String table) throws Exception {
        Outbox outbox = Outbox.builder(pool)
                .table(table)
                .dialect(Dialect.POSTGRESQL)
                .notifyAfterCommit(false)
                .build();
        LongAdder n = new LongAdder();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                int i = 0;
                while (System.nanoTime() < end) {
                    OutboxEvent e = OutboxEvent.builder("order.placed")
                            .aggregate("order", "o-" + (i++ % 1000))
                            .tenant("t-" + (i % 20))
                            .jsonPayload("{\"orderId\":1}")
                            .build();
                    outbox.inTransaction(c -> outbox.append(c, e));
                    n.increment();
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join();
        }
        outbox.close();
        pg.exec("TRUNCATE " + table);
        return n.sum() / 5.0;
    }

    private static double p99(Round r) {
        return r.trickle().getValueAtPercentile(99);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
