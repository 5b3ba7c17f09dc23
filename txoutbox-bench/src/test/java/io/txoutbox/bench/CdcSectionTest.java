package io.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rewrite of BENCHMARKS.md keeps the section that txoutbox-debezium's CdcBench wrote. */
class CdcSectionTest {

    @Test
    void the_change_data_capture_section_survives_a_rewrite(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("BENCHMARKS.md");
        String section = "<!-- cdc:begin (written by CdcBench) -->\n\n## Change data capture\n\n| CDC1 | 1 |\n\n"
                + "<!-- cdc:end -->";
        Files.writeString(out, "# Benchmarks\n\nold numbers\n\n" + section + "\n");

        String rewritten = BenchMain.keepCdcSection(out, "# Benchmarks\n\nnew numbers\n");

        assertThat(rewritten).isEqualTo("# Benchmarks\n\nnew numbers\n\n" + section + "\n");
        assertThat(BenchMain.keepCdcSection(dir.resolve("missing.md"), "new\n")).isEqualTo("new\n");
    }
}
