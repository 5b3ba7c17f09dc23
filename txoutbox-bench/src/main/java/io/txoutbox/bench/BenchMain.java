package io.txoutbox.bench;

import io.txoutbox.harness.kafka.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the end-to-end workloads W1 to W5 and ordered mode against the local PostgreSQL (and a Kafka
 * broker it starts), side by side with the raw-SQL ceiling and the peer library, and the W6 soak on an
 * embedded PostgreSQL of its own; prints the table and writes it as Markdown.
 *
 * <pre>
 * ./mvnw -q -pl txoutbox-bench -am verify -Pbench -DskipTests            # full run, writes BENCHMARKS.md
 * ... -Dbench.args=--smoke -Dbench.out=/tmp/b.md                          # seconds, tiny sizes
 * ... -Dbench.args="--full --only W6 --w6-minutes 2"                       # the soak alone, shorter
 * </pre>
 */
public final class BenchMain {
    private BenchMain() {}

    /**
     * @param args {@code --full} (default) or {@code --smoke}; {@code --out FILE} (default {@code
     *     BENCHMARKS.md}); {@code --only W1,W2,...} to run some workloads; {@code --w6-minutes N} to run each
     *     W6 soak for N minutes instead of the size's duration
     * @throws Exception when a workload fails: the run stops and nothing is written
     */
    public static void main(String[] args) throws Exception {
        Sizes sizes = Sizes.FULL;
        Path out = Path.of("BENCHMARKS.md");
        List<String> only = ALL;
        Integer w6Minutes = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--full" -> sizes = Sizes.FULL;
                case "--smoke" -> sizes = Sizes.SMOKE;
                case "--out" -> out = Path.of(args[++i]);
                case "--only" -> only = List.of(args[++i].split(","));
                case "--w6-minutes" -> w6Minutes = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown argument '" + args[i]
                            + "'; use --full, --smoke, --out FILE, --only W1,W2,..., --w6-minutes N");
            }
        }
        if (w6Minutes != null) {
            sizes = sizes.withW6Minutes(w6Minutes);
        }
        List<String> shown = new ArrayList<>(List.of(args));
        int o = shown.indexOf("--out");
        if (o >= 0) {
            shown.subList(o, Math.min(o + 2, shown.size())).clear();
        }
        Results results = run(sizes, only, out, String.join(" ", shown));
        System.out.println("wrote " + out.toAbsolutePath() + " (" + results.rows.size() + " numbers)");
    }

    /** Every workload, in the order a run takes them. */
    static final List<String> ALL = List.of("W1", "W2", "W3", "W4", "W5", "ORD", "EXP", "TENANT", "LATE", "W6");

    /** Runs the workloads and writes the report; returns every number. */
    static Results run(Sizes sizes, List<String> only, Path out, String args) throws Exception {
        Results results = new Results();
        Machine machine = Machine.read();
        String loadStart = Machine.loadAverage();
        ZonedDateTime started = ZonedDateTime.now();
        long t0 = System.nanoTime();
        List<String> pgSettings = new ArrayList<>();
        try (Pg pg = new Pg();
                LazyKafka kafka = new LazyKafka()) {
            pg.settings().forEach((k, v) -> pgSettings.add(k + " = " + v));
            Workloads w = new Workloads(pg, sizes, results, kafka);
            if (only.contains("W1")) {
                w.w1();
            }
            if (only.contains("W2")) {
                w.w2();
            }
            if (only.contains("W3")) {
                w.w3();
            }
            if (only.contains("W4") || only.contains("W5") || only.contains("ORD")) {
                w.w4();
            }
            if (only.contains("W4R")) {
                // W4's own backlog: the goal is stated for W4, and raw SQL drains a smaller backlog faster.
                new DrainRounds(w, results, "W4R").run(sizes.w4Backlog());
            }
            if (only.contains("W5")) {
                w.w5();
            }
            if (only.contains("ORD")) {
                w.ordered();
            }
            if (only.contains("EXP")) {
                w.experiments();
            }
            if (only.contains(NoisyTenant.WORKLOAD)) {
                new NoisyTenant(pg, sizes, results).run();
            }
            if (only.contains(LateCommits.WORKLOAD)) {
                new LateCommits(pg, sizes, results).run();
            }
            if (only.contains("W6")) {
                new Soak(sizes, results).run();
            }
            if (only.contains(RouteIsolation.WORKLOAD)) { // not in ALL: asked for by name (--only ROUTE)
                new RouteIsolation(pg, sizes, results).run();
            }
        }
        String loadEnd = Machine.loadAverage();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        String when = started.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + ", load " + firstLoad(loadStart)
                + " at the start";
        for (Results.Row row : results.rows) {
            results.measured.putIfAbsent(row.workload(), when);
        }
        keepOtherWorkloads(out, results);
        String md = Report.markdown(
                results,
                sizes,
                machine,
                pgSettings,
                loadStart,
                loadEnd,
                started.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                took,
                args);
        try {
            md = keepCdcSection(out, md);
            Files.writeString(out, md, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + out + ": " + e.getMessage(), e);
        }
        return results;
    }

    /**
     * A run of some workloads ({@code --only}) keeps the numbers of the others from the file it rewrites:
     * their rows are read back from its tables (each section is marked with its workload), with the date
     * and load they were measured at, so the targets and sections of every workload stay in the report.
     */
    static void keepOtherWorkloads(Path out, Results results) throws IOException {
        if (!Files.exists(out)) {
            return;
        }
        java.util.Set<String> ran = new java.util.HashSet<>();
        results.rows.forEach(r -> ran.add(r.workload()));
        String workload = null;
        String oldRun = null;
        // Only the tables of rows hold rows (W6's section also has a table per soak, by minute).
        boolean inRows = false;
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            if (!line.startsWith("|")) {
                inRows = false;
            } else if ((line + "\n").equals(Report.ROWS_HEADER)) {
                inRows = true;
            }
            if (line.startsWith("- **Date**: ") && oldRun == null) {
                oldRun = line.substring("- **Date**: ".length()).strip();
            }
            if (line.startsWith("## ")) {
                workload = legacyWorkload(line);
            } else if (line.startsWith(Report.WORKLOAD_MARK)) {
                workload = line.substring(Report.WORKLOAD_MARK.length(), line.indexOf(" -->"))
                        .strip();
            } else if (line.startsWith("<!-- cdc:")) {
                workload = null;
            } else if (workload != null && !ran.contains(workload)) {
                if (line.startsWith("_Measured ") && line.endsWith("._")) {
                    results.measured.put(workload, line.substring("_Measured ".length(), line.length() - 2));
                } else if (inRows && line.startsWith("| ") && !line.startsWith("| scenario ")) {
                    String[] cells = line.substring(2, line.length() - 1).split(" \\| ", -1);
                    if (cells.length >= 6) {
                        try {
                            double value = Double.parseDouble(cells[3].strip().replace(",", ""));
                            if (oldRun != null) {
                                results.measured.putIfAbsent(workload, "in the run of " + oldRun);
                            }
                            results.keep(new Results.Row(
                                    workload,
                                    cells[0].strip(),
                                    cells[1].strip(),
                                    cells[2].strip(),
                                    value,
                                    cells[4].strip(),
                                    String.join(" | ", java.util.Arrays.copyOfRange(cells, 5, cells.length))
                                            .strip()));
                        } catch (NumberFormatException notARow) {
                            // A table of another kind (targets): not a workload's row.
                        }
                    }
                }
            }
        }
    }

    /** Sections written before they carried a mark: their workload from the heading. */
    private static String legacyWorkload(String heading) {
        for (String w : List.of("W1", "W2", "W3", "W4", "W5", "W6")) {
            if (heading.startsWith("## " + w + " ")) {
                return w;
            }
        }
        if (heading.startsWith("## Ordered mode")) {
            return "ORD";
        }
        if (heading.startsWith("## Where the drain cost goes")) {
            return "EXP";
        }
        return null;
    }

    private static String firstLoad(String uptime) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("load average[s]?: ([0-9.]+)").matcher(uptime);
        return m.find() ? m.group(1) : uptime.strip();
    }

    /**
     * The change-data-capture section comes from another harness (txoutbox-debezium's CdcBench, which needs
     * Kafka Connect's kafka-clients and so cannot run here): a rewrite of the file keeps it as it was.
     */
    static String keepCdcSection(Path out, String md) throws IOException {
        if (!Files.exists(out)) {
            return md;
        }
        String old = Files.readString(out, StandardCharsets.UTF_8);
        int begin = old.indexOf("<!-- cdc:begin");
        int end = old.indexOf("<!-- cdc:end -->");
        if (begin < 0 || end < begin) {
            return md;
        }
        return md + (md.endsWith("\n") ? "\n" : "\n\n") + old.substring(begin, end + "<!-- cdc:end -->".length())
                + "\n";
    }

    /** Starts the Kafka broker on first use only, so runs without Kafka workloads do not pay for it. */
    static final class LazyKafka implements java.util.function.Supplier<KafkaBroker>, AutoCloseable {
        private KafkaBroker broker;

        @Override
        public synchronized KafkaBroker get() {
            if (broker == null) {
                try {
                    // A benchmark's broker: more heap and a throughput collector; topics only as the harness creates
                    // them.
                    broker = KafkaBroker.builder()
                            .autoCreateTopics(false)
                            .jvmOptions("-Xms256m", "-Xmx1g", "-XX:+UseParallelGC")
                            .start();
                } catch (Exception e) {
                    throw new IllegalStateException("the Kafka broker did not start: " + e.getMessage(), e);
                }
            }
            return broker;
        }

        @Override
        public synchronized void close() {
            if (broker != null) {
                broker.close();
            }
        }
    }
}
