package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's packages are layers: each main class imports only the server's packages below its own
 * (docs/ARCHITECTURE.md, "The relay server's packages"), so the folder tree reads as the architecture and
 * no package cycle creeps in.
 */
class PackageLayersTest {
    /** Bottom first; the root package ({@code ""}) assembles everything. */
    static final List<String> LAYERS = List.of("yaml", "transport", "config", "source", "http", "cli", "");

    private static final Pattern IMPORT =
            Pattern.compile("(?m)^import (?:static )?io\\.txoutbox\\.server\\.(?:([a-z]+)\\.)?[A-Z]");
    private static final Path MAIN = Path.of("src/main/java/io/txoutbox/server");

    @Test
    void each_package_imports_only_the_packages_below_it() throws IOException {
        List<String> upward = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(MAIN)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).toList();
        }
        for (Path file : files) {
            Path dir = MAIN.relativize(file).getParent();
            String own = dir == null ? "" : dir.toString();
            assertThat(LAYERS).as("package of %s is one of the layers", file).contains(own);
            Matcher m = IMPORT.matcher(Files.readString(file));
            while (m.find()) {
                String imported = m.group(1) == null ? "" : m.group(1);
                if (LAYERS.indexOf(imported) >= LAYERS.indexOf(own)) {
                    upward.add(file.getFileName() + " (" + (own.isEmpty() ? "root" : own)
                            + ") imports io.txoutbox.server" + (imported.isEmpty() ? "" : "." + imported));
                }
            }
        }
        assertThat(files).hasSizeGreaterThan(30);
        assertThat(upward)
                .as("imports of a package at or above the importer's layer")
                .isEmpty();
    }
}
