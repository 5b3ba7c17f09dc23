package io.txoutbox.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackageCheckTest {

    @Test
    void no_two_modules_of_this_repository_share_a_package() {
        Map<String, Set<String>> shared = PackageCheck.shared(Path.of(".."));
        assertThat(shared)
                .as(shared.isEmpty() ? "" : PackageCheck.describe(shared))
                .isEmpty();
    }

    @Test
    void a_package_in_two_modules_is_named_with_both(@TempDir Path root) throws IOException {
        source(root, "server", "io/txoutbox/server/RelayServer.java");
        source(root, "demo", "io/txoutbox/server/DemoMain.java");
        source(root, "demo", "io/txoutbox/demo/Other.java");
        source(root, "core", "io/txoutbox/Outbox.java");
        Files.createDirectories(root.resolve("notes"));
        Files.writeString(root.resolve("notes").resolve("pom.xml"), "<project/>");
        Map<String, Set<String>> shared = PackageCheck.shared(root);
        assertThat(shared).containsOnlyKeys("io.txoutbox.server");
        assertThat(shared.get("io.txoutbox.server")).containsExactly("demo", "server");
        assertThat(PackageCheck.describe(shared)).contains("package io.txoutbox.server is in demo and server");
    }

    private static void source(Path root, String module, String file) throws IOException {
        Path m = root.resolve(module);
        Files.createDirectories(m);
        Files.writeString(m.resolve("pom.xml"), "<project/>");
        Path f = m.resolve("src/main/java").resolve(file);
        Files.createDirectories(f.getParent());
        Files.writeString(f, "class X {}");
    }
}
