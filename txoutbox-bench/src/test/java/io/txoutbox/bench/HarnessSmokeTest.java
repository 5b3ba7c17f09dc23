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

        Results results =
                BenchMain.run(Sizes.SMOKE, List.of("W1", "W2", "W3", "W4", "W5", "ORD", "EXP"), out, "--smoke");

        for (String workload : List.of("W1", "W2", "W3", "W4", "W5", "ORD", "EXP")) {
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
                        && !r.metric().equals("rate"))
                .allSatisfy(r -> assertThat(r.value()).as(r.toString()).isPositive());
        assertThat(results.rows)
                .filteredOn(r -> r.metric().equals("overhead"))
                .allSatisfy(r -> assertThat(r.value()).as(r.toString()).isFinite());
        assertThat(results.get("W4", "Kafka", Workloads.TXOUTBOX, "drain")).isPositive();
        assertThat(Files.readString(out))
                .contains("## Targets", "shared_buffers", "synchronous_commit", "wal_level", "java -version");
    }
}
