package io.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.Sql;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * W6, a soak: open-loop producers append at a steady rate for a long time while two txoutbox relays
 * publish to a no-op publisher, on an embedded PostgreSQL started with autovacuum on (the shared server
 * has it off, so no table there would ever be vacuumed). Each window (a minute in the full run) reports
 * the outbox table's size, its indexes' and the total, the dead rows and autovacuum runs so far, and the
 * commit-to-publish latency of the events published in it. The second run holds a REPEATABLE READ
 * snapshot (with a read) open during some windows: the sizes grow while it is held, and the latency must
 * recover after it ends.
 */
final class Soak {
    static final String WORKLOAD = "W6";
    static final String STEADY = "steady";
    static final String HELD = "snapshot held";
    /** The note of the rows of a minute during which the snapshot was held. */
    static final String HELD_NOTE = "snapshot held";
    /** The relays of each run. */
    static final int RELAYS = 2;
    /** Producer threads; the pacer hands them one transaction every 1/rate s, whatever earlier ones do. */
    static final int PRODUCERS = 8;
    /** Recovered: a p99 within this factor of the p99 before the hold. */
    static final double RECOVERED = 2.0;
    /**
     * Recovered for good: this many consecutive steps (a second each in the full run), each with its p99
     * within {@link #RECOVERED}.
     */
    static final int RECOVERED_STEPS = 10;
    /** Sizes plateau when the second half's largest is within this factor of the first half's. */
    static final double PLATEAU = 1.2;

    /** The settings of the embedded server shown in the report (read with SHOW). */
    private static final List<String> SETTINGS = List.of(
            "server_version",
            "autovacuum",
            "autovacuum_naptime",
            "autovacuum_vacuum_threshold",
            "autovacuum_vacuum_scale_factor",
            "autovacuum_vacuum_cost_limit",
            "shared_buffers",
            "synchronous_commit",
            "fsync",
            "max_wal_size");

    private static final double MIB = 1024.0 * 1024.0;

    private final Sizes sizes;
    private final Results results;
    private final AtomicLong seq = new AtomicLong();

    /** @return the scenario of a run's rows of one minute (a window), "steady, minute 7" */
    static String minute(String run, int minute) {
        return run + ", minute " + minute;
    }

    /** @return the scenario of a run's rows once its producers stopped and its relays drained the table */
    static String end(String run) {
        return run + ", end";
    }

    /** @return whether a row's scenario is one of the run's minutes */
    static boolean isMinute(String scenario, String run) {
        return scenario.startsWith(run + ", minute ");
    }

    Soak(Sizes sizes, Results results) {
        this.sizes = sizes;
        this.results = results;
    }

    /**
     * Runs the steady soak and the one with a held snapshot, each on an embedded server of its own (so that
     * the second does not start with the first's checkpoints and vacuums to do), and stops each server.
     */
    void run() throws Exception {
        try (EmbeddedPostgres server = start()) {
            DataSource admin = server.getPostgresDatabase();
            Map<String, String> shown = Pg.settings(admin, SETTINGS);
            List<String> settings = new ArrayList<>();
            shown.forEach((k, v) -> settings.add(k + " = " + v));
            String version = shown.getOrDefault("server_version", "0");
            results.add(
                    WORKLOAD,
                    "server",
                    Workloads.TXOUTBOX,
                    "PostgreSQL",
                    Double.parseDouble(version.replaceAll("^(\\d+).*$", "$1")),
                    "version",
                    "embedded (zonky), a fresh server for each run, read with SHOW: " + String.join(", ", settings));
            soak(server, STEADY, 0, 0);
        }
        try (EmbeddedPostgres server = start()) {
            soak(server, HELD, sizes.w6HoldFrom(), sizes.w6HoldTo());
        }
    }

    private static EmbeddedPostgres start() throws java.io.IOException {
        // Autovacuum on is the point (and the default; said explicitly); fsync and synchronous_commit on as on
        // the shared server (zonky turns both off), so that commits cost what they cost there.
        return EmbeddedPostgres.builder()
                .setServerConfig("autovacuum", "on")
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private void soak(EmbeddedPostgres server, String scenario, int holdFrom, int holdTo) throws Exception {
        String table = "w6_" + (holdFrom > 0 ? "held" : "steady");
        DataSource admin = server.getPostgresDatabase();
        Sql.execute(admin, "DROP TABLE IF EXISTS " + table);
        Latencies latencies = new Latencies();
        int windows = sizes.w6Windows();
        long window = sizes.w6Window().toNanos();
        List<Histogram> perWindow = new ArrayList<>();
        List<double[]> sizesPerWindow = new ArrayList<>();
        ThreadPoolExecutor producers = new ThreadPoolExecutor(
                PRODUCERS,
                PRODUCERS,
                0,
                TimeUnit.SECONDS,
                // Bounded: producers that fall far behind slow the pacer down rather than fill the heap; the
                // committed rate of each window shows it.
                new ArrayBlockingQueue<>(100_000),
                new ThreadPoolExecutor.CallerRunsPolicy());
        List<AutoCloseable> open = new ArrayList<>();
        Connection holder = null;
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        try {
            HikariDataSource pool =
                    Pg.pool(server.getJdbcUrl("postgres", "postgres"), "postgres", "w6", PRODUCERS + 4 * RELAYS, null);
            open.add(pool);
            Outbox outbox = Outbox.builder(pool)
                    .table(table)
                    .dialect(Dialect.POSTGRESQL)
                    .createSchemaIfMissing(true)
                    .build();
            open.add(outbox);
            // The storage settings txoutbox's DDL gave the table (fillfactor, autovacuum thresholds).
            long options = Sql.count(
                    admin,
                    "SELECT coalesce(cardinality(reloptions), 0) FROM pg_class WHERE oid = '" + table + "'::regclass");
            String reloptions;
            try (Connection c = admin.getConnection();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT coalesce(array_to_string(reloptions, ', '), 'none')"
                            + " FROM pg_class WHERE oid = '" + table + "'::regclass")) {
                rs.next();
                reloptions = rs.getString(1);
            }
            results.add(
                    WORKLOAD,
                    scenario,
                    Workloads.TXOUTBOX,
                    "table options",
                    options,
                    "options",
                    "from the DDL: " + reloptions);
            Publisher publisher = batch -> {
                long now = System.nanoTime();
                for (ClaimedEvent e : batch) {
                    latencies.published(e.id(), now);
                }
                return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
            };
            for (int i = 0; i < RELAYS; i++) {
                Relay relay = outbox.relay(publisher)
                        .name("w6-" + i)
                        .batchSize(Workloads.RELAY_BATCH)
                        .maxInFlightBatches(Workloads.PIPELINE)
                        .build();
                relay.start();
                open.add(relay);
            }
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            long stopAt = start + windows * window;
            Thread pacer = new Thread(
                    () -> pace(start, stopAt, producers, outbox, pool, latencies, failure, stop), "w6-pacer");
            pacer.setDaemon(true);
            pacer.start();
            for (int w = 0; w <= windows; w++) {
                Workloads.parkUntil(start + w * window);
                if (w == holdTo && holder != null) {
                    holder.close();
                    holder = null;
                    latencies.trackStepsFrom(System.nanoTime(), window / 60);
                }
                if (w == holdFrom - 1) {
                    holder = Pg.holdSnapshot(admin.getConnection());
                }
                if (w > 0) {
                    Histogram h = latencies.window();
                    double[] size = sizes(admin, table);
                    perWindow.add(h);
                    sizesPerWindow.add(size);
                    String s = minute(scenario, w);
                    String note = w >= holdFrom && w <= holdTo ? HELD_NOTE : "";
                    double seconds = window / 1e9;
                    results.add(
                            WORKLOAD,
                            s,
                            Workloads.TXOUTBOX,
                            "committed",
                            latencies.commits() / seconds,
                            "events/s",
                            note);
                    results.add(
                            WORKLOAD,
                            s,
                            Workloads.TXOUTBOX,
                            "published",
                            latencies.publishes() / seconds,
                            "events/s",
                            note);
                    results.add(WORKLOAD, s, Workloads.TXOUTBOX, "p50", millis(h, 50), "ms", note);
                    results.add(WORKLOAD, s, Workloads.TXOUTBOX, "p99", millis(h, 99), "ms", note);
                    addSizes(s, size, note);
                }
                if (failure.get() != null) {
                    throw failure.get();
                }
            }
            pacer.join();
            producers.shutdown();
            producers.awaitTermination(30, TimeUnit.SECONDS);
            if (failure.get() != null) {
                throw failure.get();
            }
            // The relays drain what is left; then the table's size at the end.
            long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long left;
            while ((left = Sql.count(admin, "SELECT count(*) FROM " + table)) > 0
                    && System.nanoTime() < drainDeadline) {
                Thread.sleep(100);
            }
            addSizes(
                    end(scenario),
                    sizes(admin, table),
                    left == 0 ? "producers stopped, every event published" : left + " events still unpublished");
        } finally {
            stop.set(true);
            producers.shutdownNow();
            if (holder != null) {
                holder.close();
            }
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
            Sql.execute(admin, "DROP TABLE IF EXISTS " + table);
        }
        if (holdFrom > 0) {
            recovery(scenario, perWindow, holdFrom, holdTo, latencies, (windows - holdTo) * 60L);
        } else {
            plateau(scenario, sizesPerWindow);
        }
    }

    /**
     * The sizes plateau when, for the whole relation and for its indexes, the largest size in the second half
     * of the run is within {@link #PLATEAU} of the largest in the first half.
     */
    private void plateau(String scenario, List<double[]> perWindow) {
        int half = perWindow.size() / 2;
        double[] first = new double[3];
        double[] second = new double[3];
        for (int i = 0; i < perWindow.size(); i++) {
            double[] into = i < half ? first : second;
            for (int k = 0; k < 3; k++) {
                into[k] = Math.max(into[k], perWindow.get(i)[k]);
            }
        }
        double total = second[2] / first[2];
        double indexes = second[1] / first[1];
        results.add(
                WORKLOAD,
                scenario,
                Workloads.TXOUTBOX,
                "growth",
                Math.max(total, indexes),
                "x",
                String.format(
                        Locale.ROOT,
                        "largest in minutes %d-%d / largest in minutes 1-%d: total %.2f MiB / %.2f MiB (%.2fx),"
                                + " indexes %.2f MiB / %.2f MiB (%.2fx), table %.2f MiB / %.2f MiB; plateau = both"
                                + " within %.1fx",
                        half + 1,
                        perWindow.size(),
                        half,
                        second[2],
                        first[2],
                        total,
                        second[1],
                        first[1],
                        indexes,
                        second[0],
                        first[0],
                        PLATEAU));
    }

    /**
     * The latency before the hold is the p99 of every window before it but the first (a warm-up), or of the
     * first when there is no other; the latency recovered in the first window after the hold whose p99 is
     * within {@link #RECOVERED} of it ("recovered after", in windows), and, finer, at the first of {@link
     * #RECOVERED_STEPS} steps in a row each within it ("recovered in", in seconds).
     *
     * @param stepsAfter how many steps {@code latencies} tracked from the release on
     */
    private void recovery(
            String scenario,
            List<Histogram> perWindow,
            int holdFrom,
            int holdTo,
            Latencies latencies,
            long stepsAfter) {
        Histogram before = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        for (int w = holdFrom > 2 ? 2 : 1; w < holdFrom; w++) {
            before.add(perWindow.get(w - 1));
        }
        Histogram during = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        for (int w = holdFrom; w <= holdTo; w++) {
            during.add(perWindow.get(w - 1));
        }
        double preHold = millis(before, 99);
        results.add(
                WORKLOAD,
                scenario,
                Workloads.TXOUTBOX,
                "p99 before",
                preHold,
                "ms",
                "minutes " + (holdFrom > 2 ? 2 : 1) + "-" + (holdFrom - 1) + " (the first is a warm-up)");
        results.add(
                WORKLOAD,
                scenario,
                Workloads.TXOUTBOX,
                "p99 held",
                millis(during, 99),
                "ms",
                "minutes " + holdFrom + "-" + holdTo + ", the snapshot held");
        int recoveredIn = -1;
        for (int w = holdTo + 1; w <= perWindow.size(); w++) {
            if (millis(perWindow.get(w - 1), 99) <= RECOVERED * preHold) {
                recoveredIn = w - holdTo;
                break;
            }
        }
        results.add(
                WORKLOAD,
                scenario,
                Workloads.TXOUTBOX,
                "recovered after",
                recoveredIn,
                "minutes",
                recoveredIn > 0
                        ? "minute " + (holdTo + recoveredIn) + " is the first after the hold with p99 within "
                                + RECOVERED + "x of before"
                        : "no minute after the hold had p99 within " + RECOVERED + "x of before (-1 = not recovered)");
        // Steps of a sixtieth of a window (a second in the full run), reported in seconds.
        long step = latencies.recoveredAtStep(RECOVERED * preHold, stepsAfter);
        double second = step < 0 ? -1 : step * latencies.stepNanos() / 1e9;
        results.add(
                WORKLOAD,
                scenario,
                Workloads.TXOUTBOX,
                "recovered in",
                second,
                "s",
                second >= 0
                        ? "seconds from the snapshot's release to the first of " + RECOVERED_STEPS
                                + " seconds in a row (a sixtieth of a window each) whose p99 by publish time is within "
                                + RECOVERED + "x of before"
                        : "no " + RECOVERED_STEPS + " seconds in a row after the hold had p99 within " + RECOVERED
                                + "x of before (-1 = not recovered)");
    }

    private void addSizes(String scenario, double[] size, String note) {
        results.add(WORKLOAD, scenario, Workloads.TXOUTBOX, "table", size[0], "MiB", note);
        results.add(WORKLOAD, scenario, Workloads.TXOUTBOX, "indexes", size[1], "MiB", note);
        results.add(WORKLOAD, scenario, Workloads.TXOUTBOX, "total", size[2], "MiB", note);
        results.add(WORKLOAD, scenario, Workloads.TXOUTBOX, "dead rows", size[3], "rows", note);
        results.add(WORKLOAD, scenario, Workloads.TXOUTBOX, "autovacuums", size[4], "runs", note);
    }

    /** Starts one transaction every 1/rate s until {@code end}, whatever the earlier ones do (open loop). */
    private void pace(
            long start,
            long end,
            ThreadPoolExecutor producers,
            Outbox outbox,
            DataSource pool,
            Latencies latencies,
            AtomicReference<Exception> failure,
            AtomicBoolean stop) {
        long period = TimeUnit.SECONDS.toNanos(1) / sizes.w6Rate();
        for (long i = 0; failure.get() == null && !stop.get(); i++) {
            long target = start + i * period;
            if (target >= end) {
                return;
            }
            Workloads.parkUntil(target);
            producers.execute(() -> {
                try {
                    OutboxEvent e = Workloads.event(seq.incrementAndGet());
                    try (Connection c = pool.getConnection()) {
                        c.setAutoCommit(false);
                        outbox.append(c, e);
                        c.commit();
                    }
                    latencies.committed(e.id(), System.nanoTime());
                    outbox.committed();
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            });
        }
    }

    /** @return table, indexes and total in MiB, dead rows, autovacuum runs */
    private static double[] sizes(DataSource admin, String table) throws SQLException {
        String sql = "SELECT pg_relation_size(relid), pg_indexes_size(relid), pg_total_relation_size(relid),"
                + " n_dead_tup, autovacuum_count FROM pg_stat_user_tables WHERE relid = '" + table + "'::regclass";
        try (Connection c = admin.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return new double[] {
                rs.getLong(1) / MIB, rs.getLong(2) / MIB, rs.getLong(3) / MIB, rs.getLong(4), rs.getLong(5)
            };
        }
    }

    private static double millis(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    /**
     * Commit-to-publish latency per window. Either side may come first (a relay can publish a row before its
     * producer thread records the commit): the first side of an event waits in a map, the second records
     * the latency in the window it completes in and removes it, so the map holds only events in flight.
     */
    static final class Latencies {
        private record Mark(long at, boolean commit) {}

        private final Map<UUID, Mark> first = new ConcurrentHashMap<>();
        private final org.HdrHistogram.Recorder recorder =
                new org.HdrHistogram.Recorder(TimeUnit.SECONDS.toMicros(60), 3);
        private final AtomicLong commits = new AtomicLong();
        private final AtomicLong publishes = new AtomicLong();
        /** Per step of publish time, from {@link #trackStepsFrom}: a minute's p99 hides when it recovered. */
        private final Map<Long, org.HdrHistogram.ConcurrentHistogram> perStep = new ConcurrentHashMap<>();

        private volatile long trackFrom = Long.MAX_VALUE;
        private volatile long stepNanos = 1_000_000_000L;
        private long lastCommits;
        private long lastPublishes;
        private long windowCommits;
        private long windowPublishes;

        void committed(UUID id, long at) {
            commits.incrementAndGet();
            meet(id, new Mark(at, true));
        }

        void published(UUID id, long at) {
            publishes.incrementAndGet();
            meet(id, new Mark(at, false));
        }

        private void meet(UUID id, Mark mark) {
            Mark other = first.putIfAbsent(id, mark);
            if (other == null || other.commit() == mark.commit()) {
                // The first side, or a second publish of the same event (counted once).
                return;
            }
            first.remove(id);
            long committedAt = mark.commit() ? mark.at() : other.at();
            long publishedAt = mark.commit() ? other.at() : mark.at();
            long micros = Math.min(Math.max(1, (publishedAt - committedAt) / 1_000), TimeUnit.SECONDS.toMicros(60));
            recorder.recordValue(micros);
            long from = trackFrom;
            if (publishedAt >= from) {
                perStep.computeIfAbsent(
                                (publishedAt - from) / stepNanos,
                                s -> new org.HdrHistogram.ConcurrentHistogram(TimeUnit.SECONDS.toMicros(60), 2))
                        .recordValue(micros);
            }
        }

        /** @return the length of a step of {@link #recoveredAtStep}, in nanoseconds */
        long stepNanos() {
            return stepNanos;
        }

        /**
         * Keeps a histogram per step of publish time from {@code nanoTime} on (step 0 starts there): a step
         * is a sixtieth of a window, so a second in the full run and as many steps in a shorter one.
         */
        void trackStepsFrom(long nanoTime, long stepNanos) {
            this.stepNanos = stepNanos;
            trackFrom = nanoTime;
        }

        /**
         * @param limitMillis the p99 a recovered step stays within
         * @param steps how many steps were tracked
         * @return the first tracked step from which {@link #RECOVERED_STEPS} steps in a row each have a
         *     p99 within the limit (steps without publishes count as recovered), or -1
         */
        long recoveredAtStep(double limitMillis, long steps) {
            int run = 0;
            for (long s = 0; s < steps; s++) {
                Histogram h = perStep.get(s);
                boolean ok = h == null || millis(h, 99) <= limitMillis;
                run = ok ? run + 1 : 0;
                if (run == RECOVERED_STEPS) {
                    return s - RECOVERED_STEPS + 1;
                }
            }
            return -1;
        }

        /** @return the latencies completed since the last call, and starts a new window of counts */
        Histogram window() {
            long c = commits.get();
            long p = publishes.get();
            windowCommits = c - lastCommits;
            windowPublishes = p - lastPublishes;
            lastCommits = c;
            lastPublishes = p;
            return recorder.getIntervalHistogram();
        }

        /** @return commits in the window {@link #window()} closed */
        long commits() {
            return windowCommits;
        }

        /** @return publishes in the window {@link #window()} closed */
        long publishes() {
            return windowPublishes;
        }
    }
}
