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
            for (String workload : List.of("W1", "W2", "W3", "W4")) {
                assertThat(results.rows)
                        .as(workload + " " + variant)
                        .anyMatch(r ->
                                r.workload().equals(workload) && r.variant().equals(variant));
            }
        }
        assertThat(results.rows)
                .filteredOn(r -> !r.metric().equals("overhead") && !r.metric().equals("unsustained"))
                .allSatisfy(r -> assertThat(r.value()).as(r.toString()).isPositive());
        assertThat(results.rows)
                .filteredOn(r -> r.metric().equals("overhead"))
                .allSatisfy(r -> assertThat(r.value()).as(r.toString()).isFinite());
        assertThat(results.get("W4", "Kafka", Workloads.TXOUTBOX, "drain")).isPositive();
        assertThat(Files.readString(out))
                .contains("## Targets", "shared_buffers", "synchronous_commit", "wal_level", "java -version");
    }
}
