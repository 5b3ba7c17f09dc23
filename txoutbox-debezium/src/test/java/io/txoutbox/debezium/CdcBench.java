package io.txoutbox.debezium;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.harness.load.ClosedLoop;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;

/**
 * The change-data-capture benchmarks, on an embedded PostgreSQL of their own (the shared server runs at
 * {@code wal_level=replica}, and its settings are not ours to change), with the shared server's
 * settings otherwise: fsync and synchronous commit on, autovacuum off. Writes its section of
 * BENCHMARKS.md between markers that txoutbox-bench keeps when it rewrites the file.
 *
 * <ul>
 *   <li><b>CDC1</b>, append: W1's closed loop (8 threads, a business insert plus 1 or 10 events per
 *       transaction, 1 s warm-up, 3 s measured, best of 4 rounds) on the relay's table (with the
 *       after-commit notification) and in CDC mode; no relay and no connector run meanwhile (as in W1).
 *   <li><b>CDC2</b>, burst: 1,000,000 events committed in CDC mode (1,000 transactions of 1,000 rows,
 *       inserted and deleted in bulk as append does) after the slot was created, then the embedded
 *       Debezium engine with the generated configuration captures them through the outbox event router
 *       and the Kafka Connect converters to a counting sink; beside it, W4 on the same server: the relay
 *       drains a pre-loaded 1,000,000-row backlog to a no-op publisher (batch 500).
 * </ul>
 *
 * <pre>./mvnw -q -pl txoutbox-debezium -am verify -Pbench -DskipTests</pre>
 */
public final class CdcBench {
    static final String BEGIN = "<!-- cdc:begin (written by txoutbox-debezium's CdcBench; kept by txoutbox-bench) -->";
    static final String END = "<!-- cdc:end -->";

    /** More rounds than W1's two: the best of each cell is what survives the load of a shared machine. */
    static final int ROUNDS = 4;

    private final EmbeddedPostgres pg;
    private final List<String[]> rows = new ArrayList<>();
    private final int burst;
    private final int seconds;
    private final int rounds;

    private CdcBench(EmbeddedPostgres pg, int burst, int seconds, int rounds) {
        this.pg = pg;
        this.burst = burst;
        this.seconds = seconds;
        this.rounds = rounds;
    }

    /**
     * @param args {@code --out FILE} (default BENCHMARKS.md), {@code --smoke} for tiny sizes
     * @throws Exception when a measurement fails; nothing is written then
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of("BENCHMARKS.md");
        boolean smoke = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--smoke" -> smoke = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        System.out.println(run(out, smoke));
    }

    /**
     * Runs CDC1 and CDC2 and writes their section into {@code out}.
     *
     * @param smoke tiny sizes and one round: checks the harness, measures nothing
     * @return the section as written
     * @throws Exception when a measurement fails; nothing is written then
     */
    static String run(Path out, boolean smoke) throws Exception {
        String loadStart = uptime();
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("wal_level", "logical")
                .setServerConfig("max_replication_slots", "4")
                .setServerConfig("max_wal_senders", "4")
                .setServerConfig("autovacuum", "off")
                // zonky turns these off for fast tests; the shared server (and production) has them on.
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .setServerConfig("max_wal_size", "1GB")
                .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                .start()) {
            CdcBench bench = new CdcBench(pg, smoke ? 5_000 : 1_000_000, smoke ? 1 : 3, smoke ? 1 : ROUNDS);
            String settings = bench.settings();
            bench.append();
            bench.capture();
            bench.drain();
            String md = bench.markdown(
                    settings, started, Duration.ofNanos(System.nanoTime() - t0), loadStart, uptime(), smoke);
            write(out, md);
            return md;
        }
    }

    // ------------------------------------------------------------------ CDC1

    private void append() throws Exception {
        String orders = "bench_orders";
        exec("CREATE TABLE " + orders + " (id bigserial PRIMARY KEY, customer text NOT NULL,"
                + " amount numeric(12,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
        try (HikariDataSource pool = pool(8)) {
            Outbox relayTable = build(pool, "bench_relay", false);
            Outbox cdc = build(pool, "bench_cdc", true);
            Map<String, Outbox> variants = new LinkedHashMap<>();
            variants.put("relay table", relayTable);
            variants.put("CDC mode", cdc);
            Map<String, Double> best = new LinkedHashMap<>();
            for (int round = 0; round < rounds; round++) {
                for (int events : new int[] {1, 10}) {
                    for (Map.Entry<String, Outbox> v : variants.entrySet()) {
                        exec("TRUNCATE " + orders + ", bench_relay, bench_cdc");
                        exec("CHECKPOINT");
                        Outbox outbox = v.getValue();
                        double tps = closedLoop(8, () -> {
                            try (Connection c = pool.getConnection()) {
                                c.setAutoCommit(false);
                                try (PreparedStatement ps = c.prepareStatement(
                                        "INSERT INTO " + orders + " (customer, amount) VALUES (?, ?)")) {
                                    ps.setString(1, "c-0042");
                                    ps.setBigDecimal(2, new java.math.BigDecimal("123.45"));
                                    ps.executeUpdate();
                                }
                                List<OutboxEvent> list = new ArrayList<>(events);
                                for (int i = 0; i < events; i++) {
                                    list.add(OutboxEvent.builder("order.placed")
                                            .aggregate("order", "order-" + i)
                                            .jsonPayload("{\"orderId\":" + i + ",\"amount\":123.45}")
                                            .build());
                                }
                                outbox.appendAll(c, list);
                                c.commit();
                            }
                            // As users do; on the relay's table it sends the after-commit notification.
                            outbox.committed();
                        });
                        best.merge(events + "|" + v.getKey(), tps, Math::max);
                    }
                }
            }
            for (int events : new int[] {1, 10}) {
                String scenario = events + " event" + (events > 1 ? "s" : "") + "/tx";
                double relay = best.get(events + "|relay table");
                for (String v : variants.keySet()) {
                    double tps = best.get(events + "|" + v);
                    rows.add(row(
                            "CDC1",
                            scenario,
                            v,
                            "tx/s",
                            tps,
                            "tx/s",
                            v.equals("relay table")
                                    ? ""
                                    : String.format("%+.1f%% vs relay table", (tps / relay - 1) * 100)));
                }
            }
        }
    }

    /** Runs work on N threads for 1 s of warm-up plus the measured time; returns completions per second. */
    private double closedLoop(int threads, ClosedLoop.Work work) throws Exception {
        return ClosedLoop.perSecond(threads, Duration.ofSeconds(1), Duration.ofSeconds(seconds), work);
    }

    // ------------------------------------------------------------------ CDC2

    private void capture() throws Exception {
        try (HikariDataSource pool = pool(2)) {
            Outbox outbox = build(pool, "bench_burst", true);
            DebeziumOutboxConfig config = DebeziumOutboxConfig.builder(outbox)
                    .database("localhost", pg.getPort(), "postgres", "postgres", "unused")
                    .topicPrefix("bench")
                    .build();
            exec(config.createPublicationSql());
            exec(config.createSlotSql());
            // What CDC-mode append does, in bulk: insert and delete in the same transaction.
            int perTx = 1_000;
            long loadStart = System.nanoTime();
            for (int done = 0; done < burst; done += perTx) {
                try (Connection c = pool.getConnection()) {
                    c.setAutoCommit(false);
                    try (Statement st = c.createStatement()) {
                        st.execute("INSERT INTO bench_burst (id, aggregate_type, aggregate_id, event_type, payload,"
                                + " headers, created_at, available_at) SELECT gen_random_uuid(), 'order', 'order-' ||"
                                + " (g % 1000), 'order.placed', convert_to('{\"orderId\":' || g || ',\"customer\":"
                                + "\"c-0042\",\"amount\":123.45,\"currency\":\"EUR\",\"lines\":3}', 'UTF8'),"
                                + " '{\"correlation-id\":\"c-1\"}'::jsonb, now(), now()"
                                + " FROM generate_series(" + (done + 1) + ", " + (done + perTx) + ") g");
                        st.execute("DELETE FROM bench_burst");
                    }
                    c.commit();
                }
            }
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;

            Map<String, String> props = config.kafkaConnectProperties();
            Converter keys = converter(props, "key.converter", true);
            Converter values = converter(props, "value.converter", false);
            AtomicLong seen = new AtomicLong();
            AtomicLong firstAt = new AtomicLong();
            AtomicLong lastAt = new AtomicLong();
            Properties engineProps = new Properties();
            engineProps.putAll(props);
            engineProps.setProperty("name", "bench");
            engineProps.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
            engineProps.setProperty("offset.flush.interval.ms", "1000");
            AtomicReference<String> failure = new AtomicReference<>();
            long engineStart = System.nanoTime();
            DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(
                            ChangeEventFormat.of(Connect.class))
                    .using(engineProps)
                    .using((ok, message, error) -> {
                        if (!ok) {
                            failure.set(message + " " + error);
                        }
                    })
                    .notifying((records, committer) -> {
                        for (RecordChangeEvent<SourceRecord> event : records) {
                            SourceRecord r = event.record();
                            keys.fromConnectData(r.topic(), r.keySchema(), r.key());
                            values.fromConnectData(r.topic(), r.valueSchema(), r.value());
                            long n = seen.incrementAndGet();
                            if (n == 1) {
                                firstAt.set(System.nanoTime());
                            }
                            lastAt.set(System.nanoTime());
                            committer.markProcessed(event);
                        }
                        committer.markBatchFinished();
                    })
                    .build();
            ExecutorService executor = Executors.newSingleThreadExecutor();
            executor.execute(engine);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (seen.get() < burst && System.nanoTime() < deadline && failure.get() == null) {
                Thread.sleep(20);
            }
            engine.close();
            executor.shutdown();
            executor.awaitTermination(30, TimeUnit.SECONDS);
            if (failure.get() != null) {
                throw new IllegalStateException("the engine failed: " + failure.get());
            }
            long n = seen.get();
            double streaming = (lastAt.get() - firstAt.get()) / 1e9;
            double total = (lastAt.get() - engineStart) / 1e9;
            rows.add(burstRow(
                    "Debezium (embedded engine)",
                    "capture",
                    n / streaming,
                    String.format(
                            "%d events, first to last record %.1f s; %.1f s from engine start; load %.1f s",
                            n, streaming, total, loadSeconds)));
            while (true) {
                try {
                    exec(config.dropSql().get(0));
                    break;
                } catch (IllegalStateException active) {
                    Thread.sleep(100);
                }
            }
            exec(config.dropSql().get(1));
        }
    }

    private void drain() throws Exception {
        try (HikariDataSource pool = pool(4)) {
            Outbox outbox = build(pool, "bench_w4", false);
            exec("INSERT INTO bench_w4 (id, aggregate_type, aggregate_id, event_type, payload, headers,"
                    + " created_at, available_at) SELECT gen_random_uuid(), 'order', 'order-' || (g % 1000),"
                    + " 'order.placed', convert_to('{\"orderId\":' || g || ',\"customer\":\"c-0042\",\"amount\":"
                    + "123.45,\"currency\":\"EUR\",\"lines\":3}', 'UTF8'), '{}'::jsonb, now(), now()"
                    + " FROM generate_series(1, " + burst + ") g");
            exec("VACUUM ANALYZE bench_w4");
            AtomicLong published = new AtomicLong();
            Publisher noop = batch -> {
                published.addAndGet(batch.size());
                return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
            };
            long start = System.nanoTime();
            try (Relay relay = outbox.relay(noop).batchSize(500).build()) {
                relay.start();
                long deadline = start + TimeUnit.MINUTES.toNanos(5);
                while (published.get() < burst && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            double s = (System.nanoTime() - start) / 1e9;
            rows.add(burstRow(
                    "txoutbox relay (W4 on this server)",
                    "drain",
                    published.get() / s,
                    String.format("%d events in %.1f s, no-op publisher, batch 500", published.get(), s)));
        }
    }

    // ------------------------------------------------------------------ plumbing

    private Outbox build(HikariDataSource pool, String table, boolean cdc) {
        return Outbox.builder(pool)
                .table(table)
                .createSchemaIfMissing(true)
                .changeDataCapture(cdc)
                .build();
    }

    private HikariDataSource pool(int size) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
        c.setMaximumPoolSize(size + 2);
        return new HikariDataSource(c);
    }

    private void exec(String sql) {
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private String settings() throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement st = c.createStatement()) {
            for (String name : new String[] {
                "server_version",
                "shared_buffers",
                "synchronous_commit",
                "fsync",
                "wal_level",
                "autovacuum",
                "max_wal_size",
                "work_mem"
            }) {
                try (ResultSet rs = st.executeQuery("SHOW " + name)) {
                    rs.next();
                    sb.append(name).append(" = ").append(rs.getString(1)).append('\n');
                }
            }
        }
        return sb.toString();
    }

    private static Converter converter(Map<String, String> props, String key, boolean isKey) throws Exception {
        Converter c = (Converter)
                Class.forName(props.get(key)).getDeclaredConstructor().newInstance();
        Map<String, String> sub = new LinkedHashMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(key + ".")) {
                sub.put(k.substring(key.length() + 1), v);
            }
        });
        c.configure(sub, isKey);
        return c;
    }

    /** @return a CDC2 row: events per second through the burst */
    private String[] burstRow(String variant, String metric, double eventsPerSecond, String note) {
        return row("CDC2", String.format("%,d-event burst", burst), variant, metric, eventsPerSecond, "events/s", note);
    }

    private static String[] row(
            String workload, String scenario, String variant, String metric, double value, String unit, String note) {
        String v = value >= 100 ? String.format("%,.0f", value) : String.format("%.2f", value);
        return new String[] {workload, scenario, variant, metric, v, unit, note};
    }

    private String markdown(
            String settings, Instant started, Duration took, String loadStart, String loadEnd, boolean smoke) {
        StringBuilder md = new StringBuilder(BEGIN).append("\n\n## Change data capture (CDC1, CDC2)\n\n");
        md.append("Generated by `./mvnw -q -pl txoutbox-debezium -am verify -Pbench -DskipTests`")
                .append(smoke ? " (smoke sizes: not a measurement)" : "")
                .append(" on ")
                .append(started)
                .append(" (took ")
                .append(took.toSeconds())
                .append(" s). It runs apart from the command above: Debezium 3.6.1 needs Kafka Connect's own")
                .append(" kafka-clients (4.3), while txoutbox-bench measures txoutbox-kafka on 4.1.1.\n\n");
        md.append("- **Server**: an embedded PostgreSQL (zonky) started by the harness with `wal_level = logical`,")
                .append(" which logical decoding needs (the shared server runs at `replica`); the other settings as")
                .append(" the shared server's where they matter:\n\n```\n")
                .append(settings)
                .append("```\n\n");
        md.append("- **Load** (`uptime`) at the start: `")
                .append(loadStart)
                .append("`; at the end: `")
                .append(loadEnd)
                .append("` (other work shares the machine: the numbers may be pessimistic).\n");
        md.append("- **CDC1**: W1's closed loop (8 threads, a business insert plus 1 or 10 events per transaction, 1 s")
                .append(" warm-up, ")
                .append(seconds)
                .append(" s measured, best of ")
                .append(rounds)
                .append(" rounds, the variants interleaved); no relay and no connector run meanwhile.\n");
        md.append("- **CDC2**: ")
                .append(String.format("%,d", burst))
                .append(" events committed in CDC mode (transactions of 1,000 rows inserted and deleted in bulk, as")
                .append(" append does) after the slot was created; then the embedded engine, configured with")
                .append(" `DebeziumOutboxConfig.kafkaConnectProperties()`, streams them through the outbox event")
                .append(" router and the Kafka Connect key and value converters to a counting sink. Beside it, W4")
                .append(" on the same server: the relay drains the same number of pre-loaded rows to a no-op")
                .append(" publisher.\n\n");
        md.append("| workload | scenario | variant | metric | value | unit | note |\n|---|---|---|---|---:|---|---|\n");
        for (String[] r : rows) {
            md.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        return md.append('\n').append(END).append('\n').toString();
    }

    /** Replaces this harness's section of the file, or appends it; the rest stays as it is. */
    static void write(Path out, String section) throws Exception {
        String text = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        int b = text.indexOf(BEGIN);
        int e = text.indexOf(END);
        String updated = b >= 0 && e > b
                ? text.substring(0, b) + section.strip() + text.substring(e + END.length())
                : text + (text.endsWith("\n") || text.isEmpty() ? "\n" : "\n\n") + section;
        Files.writeString(out, updated, StandardCharsets.UTF_8);
    }

    private static String uptime() {
        try {
            Process p = new ProcessBuilder("uptime").redirectErrorStream(true).start();
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line = r.readLine();
                p.waitFor(5, TimeUnit.SECONDS);
                return line == null ? "?" : line.strip();
            }
        } catch (Exception e) {
            return "?";
        }
    }
}
