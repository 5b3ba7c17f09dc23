package io.txoutbox.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassSizeCheckTest {

    @Test
    void no_main_class_of_the_core_or_the_server_is_over_the_limit() {
        Map<String, Long> over = ClassSizeCheck.over(Path.of(".."), ClassSizeCheck.MODULES, ClassSizeCheck.MAX_LINES);
        assertThat(over)
                .as(over.isEmpty() ? "" : ClassSizeCheck.describe(over, ClassSizeCheck.MAX_LINES))
                .isEmpty();
    }

    @Test
    void a_file_over_the_limit_is_named_with_its_length(@TempDir Path root) throws IOException {
        source(root, "core", "io/txoutbox/Small.java", 450);
        source(root, "core", "io/txoutbox/jdbc/Big.java", 451);
        source(root, "server", "io/txoutbox/server/Fine.java", 10);
        source(root, "other", "io/txoutbox/other/Huge.java", 2000);
        Map<String, Long> over = ClassSizeCheck.over(root, List.of("core", "server"), 450);
        assertThat(over).containsOnlyKeys("core/src/main/java/io/txoutbox/jdbc/Big.java");
        assertThat(ClassSizeCheck.describe(over, 450))
                .contains("core/src/main/java/io/txoutbox/jdbc/Big.java has 451 lines")
                .contains("over 450 lines");
    }

    @Test
    void a_module_that_is_not_there_is_refused_not_skipped(@TempDir Path root) {
        assertThatThrownBy(() -> ClassSizeCheck.over(root, List.of("txoutbox-gone"), 450))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("txoutbox-gone");
    }

    private static void source(Path root, String module, String file, int lines) throws IOException {
        Path f = root.resolve(module).resolve("src/main/java").resolve(file);
        Files.createDirectories(f.getParent());
        Files.writeString(f, "class X {}\n".repeat(lines));
    }
}
