package io.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run of some workloads keeps the numbers of the others from the report it rewrites. */
class PartialRunTest {

    @Test
    void rows_of_workloads_not_run_are_read_back_with_when_they_were_measured(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("BENCHMARKS.md");
        Files.writeString(out, """
                # Benchmarks

                - **Date**: 2026-11-30T23:18:38Z (the run took 702 s)

                ## W1 append overhead (8 threads, best of 2 rounds)

                | scenario | variant | metric | value | unit | note |
                |---|---|---|---:|---|---|
                | 1 event/tx | txoutbox | tx/s | 7,001 | tx/s | old |

                ## W4 backlog drain

                <!-- workload W4 -->
                _Measured 2026-12-01T10:00:00Z, load 0.5 at the start._

                | scenario | variant | metric | value | unit | note |
                |---|---|---|---:|---|---|
                | no-op | txoutbox | drain | 40,812 | events/s | 1000000 events in 24.5 s |
                | no-op | raw SQL | drain | 95.50 | events/s | a | b |

                ## W6 soak

                <!-- workload W6 -->

                | minute | committed/s | published/s | p50 ms | p99 ms | table MiB | indexes MiB | total MiB | dead rows | autovacuums | |
                |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
                | 1 | 3,000 | 2,990 | 1.20 | 4.50 | 1.00 | 0.50 | 1.50 | 10 | 0 | |

                <details><summary>every row of W6</summary>

                | scenario | variant | metric | value | unit | note |
                |---|---|---|---:|---|---|
                | steady, minute 1 | txoutbox | p99 | 4.50 | ms | |

                </details>
                """, StandardCharsets.UTF_8);
        Results results = new Results();
        results.add("W1", "1 event/tx", "txoutbox", "tx/s", 9_000, "tx/s", "new");

        BenchMain.keepOtherWorkloads(out, results);

        assertThat(results.get("W1", "1 event/tx", "txoutbox", "tx/s"))
                .as("run now wins")
                .isEqualTo(9_000);
        assertThat(results.rows).filteredOn(r -> r.workload().equals("W1")).hasSize(1);
        assertThat(results.get("W4", "no-op", "txoutbox", "drain")).isEqualTo(40_812);
        assertThat(results.get("W4", "no-op", "raw SQL", "drain")).isEqualTo(95.5);
        assertThat(results.rows)
                .filteredOn(r -> r.variant().equals("raw SQL"))
                .singleElement()
                .satisfies(r -> assertThat(r.note()).isEqualTo("a | b"));
        assertThat(results.measured).containsEntry("W4", "2026-12-01T10:00:00Z, load 0.5 at the start");
        assertThat(results.rows)
                .as("only the table of rows is read back, not W6's table by minute")
                .filteredOn(r -> r.workload().equals("W6"))
                .singleElement()
                .satisfies(r -> assertThat(r.value()).isEqualTo(4.5));
    }
}
