package io.txoutbox.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the CDC benchmark harness with tiny sizes, so it never rots: every number is produced and the
 * section lands between its markers, the rest of the file kept. No timing is asserted.
 */
class CdcBenchSmokeTest {

    @Test
    void the_harness_produces_every_number_and_keeps_the_rest_of_the_file(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("BENCHMARKS.md");
        Files.writeString(out, "# Benchmarks\n\nthe other workloads\n");

        String section = CdcBench.run(out, true);

        assertThat(section.lines().filter(l -> l.startsWith("| CDC1 "))).hasSize(4);
        assertThat(section.lines().filter(l -> l.startsWith("| CDC2 ")))
                .hasSize(2)
                .allSatisfy(l -> assertThat(l).contains("5000 events"));
        assertThat(Files.readString(out))
                .startsWith("# Benchmarks\n\nthe other workloads\n")
                .contains(CdcBench.BEGIN, CdcBench.END, "wal_level = logical", "fsync = on");

        CdcBench.write(out, CdcBench.BEGIN + "\nreplaced\n" + CdcBench.END + "\n");
        assertThat(Files.readString(out)).contains("replaced").doesNotContain("| CDC1 ");
    }
}
