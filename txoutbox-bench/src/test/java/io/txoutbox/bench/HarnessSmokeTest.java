package io.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every workload of the harness with tiny sizes against the local PostgreSQL and a real Kafka
 * broker, so the harness never rots. No timing is asserted: only that every number is produced.
 */
class HarnessSmokeTest {

    @Test
    void every_workload_produces_every_number(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("BENCHMARKS.md");

        Results results = BenchMain.run(Sizes.SMOKE, BenchMain.ALL, out, "--smoke");

        for (String workload : BenchMain.ALL) {
            assertThat(results.rows).as(workload).anyMatch(r -> r.workload().equals(workload));
        }
        for (String variant : List.of(Workloads.RAW, Workloads.TXOUTBOX, Workloads.PEER)) {
            for (String workload : List.of("W3", "W4")) {
                assertThat(results.rows)
                        .as(workload + " " + variant)
                        .anyMatch(r ->
                                r.workload().equals(workload) && r.variant().equals(variant));
            }
        }
        for (String variant : List.of(Workloads.BASELINE, Workloads.TXOUTBOX, Workloads.PEER, Workloads.TXOUTBOX_01)) {
            assertThat(results.get("W1", "1 event/tx", variant, "tx/s"))
                    .as("W1 " + variant)
                    .isPositive();
            assertThat(results.get("W1", "10 events/tx", variant, "notify-lock waits"))
                    .as("W1 wait sampling " + variant)
                    .isNotNaN();
        }
        for (String variant : List.of(
                Workloads.CEILING,
                Workloads.TX_REMOTE,
                Workloads.TX_IN_JVM,
                Workloads.FOREIGN_POLL,
                Workloads.FOREIGN_TRIGGER,
                Workloads.RAW,
                Workloads.PEER)) {
            assertThat(results.get("W2", "highest sustainable", variant, "rate"))
                    .as("W2 " + variant)
                    .isNotNaN();
        }
        assertThat(results.get("W2", "200/s", Workloads.TX_REMOTE, "p50"))
                .as("the relay in another JVM confirmed events")
                .isPositive();
        assertThat(results.rows)
                .filteredOn(r -> !r.metric().equals("overhead")
                        && !r.metric().equals("unsustained")
                        && !r.metric().equals("notify-lock waits")
                        && !r.metric().equals("rate")
                        // LATE: how many events waited longer than the bound, which is 0 when it holds.
                        && !r.metric().equals("over 250 ms")
                        // W6: counts that may be 0, a latency of a minute with nothing published, -1 = not recovered.
                        && !r.metric().equals("dead rows")
                        && !r.metric().equals("autovacuums")
                        && !r.metric().equals("p50")
                        && !r.metric().equals("p99")
                        && !r.metric().equals("recovered after")
                        && !r.metric().equals("recovered in"))
                .allSatisfy(r -> assertThat(r.value()).as(r.toString()).isPositive());
        assertThat(results.get(Soak.WORKLOAD, Soak.HELD, Workloads.TXOUTBOX, "recovered in"))
                .as("W6 measured its recovery (-1 = not recovered in the smoke run's few seconds)")
                .isGreaterThanOrEqualTo(-1);
        assertThat(results.rows)
                .filteredOn(r -> r.metric().equals("overhead"))
                .allSatisfy(r -> assertThat(r.value()).as(r.toString()).isFinite());
        assertThat(results.get("W4", "Kafka", Workloads.TXOUTBOX, "drain")).isPositive();
        assertThat(results.get("W4", Workloads.KAFKA_PIPELINED, Workloads.TXOUTBOX, "drain"))
                .isPositive();
        for (String variant : List.of(Workloads.RAW, Workloads.TXOUTBOX)) {
            assertThat(results.get("W4", Workloads.NEVER_ANALYZED, variant, "vs analyzed"))
                    .as("never analyzed " + variant)
                    .isPositive();
            assertThat(results.get("W5", "held horizon", variant, "buffers/1k events"))
                    .as("buffers " + variant)
                    .isPositive();
        }
        assertThat(results.get("ORD", Workloads.ORDERED_NEVER_ANALYZED, Workloads.TXOUTBOX, "vs analyzed"))
                .isPositive();
        assertThat(results.rows)
                .filteredOn(r -> r.workload().equals("W4")
                        && r.scenario().equals(Workloads.NEVER_ANALYZED)
                        && r.metric().equals("drain"))
                .allSatisfy(r -> assertThat(r.note()).contains("0 analyzes by the end"));
        for (int minute = 1; minute <= Sizes.SMOKE.w6Windows(); minute++) {
            for (String scenario : List.of(Soak.STEADY, Soak.HELD)) {
                assertThat(results.get("W6", Soak.minute(scenario, minute), Workloads.TXOUTBOX, "total"))
                        .as("W6 " + scenario + " minute " + minute)
                        .isPositive();
                assertThat(results.get("W6", Soak.minute(scenario, minute), Workloads.TXOUTBOX, "committed"))
                        .as("W6 producers " + scenario + " minute " + minute)
                        .isPositive();
            }
        }
        assertThat(results.get("W6", Soak.end(Soak.STEADY), Workloads.TXOUTBOX, "total"))
                .isPositive();
        assertThat(results.get("W6", Soak.STEADY, Workloads.TXOUTBOX, "growth")).isPositive();
        assertThat(results.get("W6", Soak.HELD, Workloads.TXOUTBOX, "p99 before"))
                .isPositive();
        assertThat(results.get("W6", Soak.HELD, Workloads.TXOUTBOX, "recovered after"))
                .isNotNaN();
        assertThat(Files.readString(out))
                .contains(
                        "## Targets",
                        "shared_buffers",
                        "synchronous_commit",
                        "wal_level",
                        "java -version",
                        "| W6 sizes plateau |",
                        "| W6 latency recovers within a minute |",
                        "autovacuum = on");
    }
}
