package io.txoutbox.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InternalApiCheckTest {

    /**
     * The internal package's types, classes outside it that expose them and that do not, and a library's
     * class (as a fat jar bundles it) that is not txoutbox's to check.
     */
    private static final Map<String, String> FIXTURES = Map.of(
            "io/txoutbox/fixture/internal/Hidden.java",
            "package io.txoutbox.fixture.internal; public class Hidden { public Hidden self() { return this; } }",
            "io/txoutbox/fixture/internal/HiddenBase.java",
            "package io.txoutbox.fixture.internal; public abstract class HiddenBase {}",
            "io/txoutbox/fixture/internal/HiddenFailure.java",
            "package io.txoutbox.fixture.internal; public class HiddenFailure extends Exception {"
                    + " private static final long serialVersionUID = 1L; }",
            "io/txoutbox/fixture/api/Exposing.java",
            """
            package io.txoutbox.fixture.api;
            import io.txoutbox.fixture.internal.Hidden;
            import java.util.List;
            public class Exposing {
                public Hidden hidden;
                public Exposing() {}
                public Exposing(Hidden hidden) { this.hidden = hidden; }
                public Hidden get() { return null; }
                protected List<Hidden> all() { return List.of(); }
                public void fail() throws io.txoutbox.fixture.internal.HiddenFailure {}
                public static final class Builder { public Builder with(Hidden hidden) { return this; } }
                protected static class Extension { public Hidden get() { return null; } }
            }
            """,
            "io/txoutbox/fixture/api/Bounded.java",
            "package io.txoutbox.fixture.api; public class Bounded<T extends io.txoutbox.fixture.internal.Hidden> {}",
            "io/txoutbox/fixture/api/Extending.java",
            "package io.txoutbox.fixture.api; public class Extending extends io.txoutbox.fixture.internal.HiddenBase {}",
            "io/txoutbox/fixture/api/Clean.java",
            """
            package io.txoutbox.fixture.api;
            import io.txoutbox.fixture.internal.Hidden;
            public class Clean {
                private Hidden hidden = new Hidden();
                Hidden packagePrivate() { return hidden; }
                public String shown() { return hidden.toString(); }
                private static final class Helper { public Hidden get() { return null; } }
                public Runnable task() { return () -> hidden.self(); }
                public Object anonymous() { return new Object() { public Hidden get() { return hidden; } }; }
            }
            """,
            "org/example/Bundled.java",
            "package org.example; public class Bundled extends io.txoutbox.fixture.internal.HiddenBase {}",
            "io/txoutbox/fixture/api/PackagePrivate.java",
            """
            package io.txoutbox.fixture.api;
            class PackagePrivate extends io.txoutbox.fixture.internal.HiddenBase {
                public io.txoutbox.fixture.internal.Hidden get() { return null; }
                public static class Nested { public io.txoutbox.fixture.internal.Hidden get() { return null; } }
            }
            """);

    @Test
    void a_public_member_superclass_or_signature_naming_an_internal_type_is_a_finding(@TempDir Path dir)
            throws IOException {
        Path classes = compile(dir);
        assertThat(InternalApiCheck.findings(classes))
                .containsExactly(
                        "io.txoutbox.fixture.api.Bounded exposes io.txoutbox.fixture.internal.Hidden in its declaration (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Exposing.hidden exposes io.txoutbox.fixture.internal.Hidden (txoutbox-fixture)",
                        "new io.txoutbox.fixture.api.Exposing(...) exposes io.txoutbox.fixture.internal.Hidden (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Exposing.get(...) exposes io.txoutbox.fixture.internal.Hidden (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Exposing.all(...) exposes io.txoutbox.fixture.internal.Hidden (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Exposing.fail(...) exposes io.txoutbox.fixture.internal.HiddenFailure (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Exposing$Builder.with(...) exposes io.txoutbox.fixture.internal.Hidden (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Exposing$Extension.get(...) exposes io.txoutbox.fixture.internal.Hidden (txoutbox-fixture)",
                        "io.txoutbox.fixture.api.Extending extends io.txoutbox.fixture.internal.HiddenBase (txoutbox-fixture)");
    }

    @Test
    void private_and_package_private_uses_and_the_internal_package_itself_are_not_findings(@TempDir Path dir)
            throws IOException {
        Path classes = compile(dir);
        List<String> findings = InternalApiCheck.findings(classes);
        assertThat(findings)
                .noneMatch(f ->
                        f.startsWith("io.txoutbox.fixture.api.Clean") || f.startsWith("io.txoutbox.fixture.internal."));
        assertThat(findings).noneMatch(f -> f.startsWith("io.txoutbox.fixture.api.PackagePrivate"));
        assertThat(findings).as("a bundled library's class").noneMatch(f -> f.startsWith("org.example."));
        try (Stream<Path> files = Files.list(classes.resolve("io/txoutbox/fixture/api"))) {
            for (Path exposing : files.filter(f -> f.getFileName().toString().matches("(Bounded|Exposing|Extending).*"))
                    .toList()) {
                Files.delete(exposing);
            }
        }
        assertThat(InternalApiCheck.findings(classes)).isEmpty();
        InternalApiCheck.main(new String[] {classes.toString()});
    }

    @Test
    void a_jar_reads_as_its_classes_do_and_main_fails_naming_the_findings(@TempDir Path dir) throws IOException {
        Path classes = compile(dir);
        Path jar = dir.resolve("repository/io/txoutbox/txoutbox-fixture/0.1.0/txoutbox-fixture-0.1.0.jar");
        jar(classes, jar);
        assertThat(InternalApiCheck.findings(jar)).isEqualTo(InternalApiCheck.findings(classes));
        assertThatThrownBy(() -> InternalApiCheck.main(new String[] {jar.toString()}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("public API exposes internal types")
                .hasMessageContaining(
                        "\n  io.txoutbox.fixture.api.Extending extends io.txoutbox.fixture.internal.HiddenBase (txoutbox-fixture)");
    }

    @Test
    void the_class_path_entries_checked_are_the_txoutbox_modules(@TempDir Path dir) throws IOException {
        Path module = Files.createDirectories(dir.resolve("txoutbox-kafka/target/classes"));
        Path tests = Files.createDirectories(dir.resolve("txoutbox-kafka/target/test-classes"));
        Path other = Files.createDirectories(dir.resolve("integration-tests/target/classes"));
        Path jar = file(dir.resolve("m2/io/txoutbox/txoutbox-core/0.1.0/txoutbox-core-0.1.0.jar"));
        Path packaged = file(dir.resolve("txoutbox-redis/target/txoutbox-redis-0.1.0.jar"));
        Path testJar = file(dir.resolve("m2/io/txoutbox/txoutbox-server/0.1.0/txoutbox-server-0.1.0-tests.jar"));
        Path library = file(dir.resolve("m2/org/slf4j/slf4j-api/2.0.17/slf4j-api-2.0.17.jar"));
        Path missing = dir.resolve("txoutbox-redis/target/classes");
        String classPath = String.join(
                File.pathSeparator,
                Stream.of(module, tests, other, jar, packaged, testJar, library, missing)
                        .map(Path::toString)
                        .toList());
        assertThat(InternalApiCheck.modulesOn(classPath)).containsExactly(module, jar, packaged);
        assertThat(InternalApiCheck.moduleOf(module)).isEqualTo("txoutbox-kafka");
        assertThat(InternalApiCheck.moduleOf(jar)).isEqualTo("txoutbox-core");
        assertThat(InternalApiCheck.moduleOf(packaged)).isEqualTo("txoutbox-redis");
    }

    @Test
    void only_a_package_segment_named_internal_is_internal() {
        assertThat(InternalApiCheck.isInternal("io/txoutbox/internal/transport/Route"))
                .isTrue();
        assertThat(InternalApiCheck.isInternal("internal/Route")).isTrue();
        assertThat(InternalApiCheck.isInternal("io/txoutbox/internals/Route")).isFalse();
        assertThat(InternalApiCheck.isInternal("io/txoutbox/kafka/internal")).isFalse();
    }

    /** @return the fixtures compiled into {@code txoutbox-fixture/target/classes} */
    private static Path compile(Path dir) throws IOException {
        List<String> arguments = new ArrayList<>(
                List.of("-d", dir.resolve("txoutbox-fixture/target/classes").toString()));
        for (Map.Entry<String, String> fixture : FIXTURES.entrySet()) {
            Path source = dir.resolve("src").resolve(fixture.getKey());
            Files.createDirectories(source.getParent());
            Files.writeString(source, fixture.getValue());
            arguments.add(source.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("a JDK's compiler").isNotNull();
        assertThat(javac.run(null, null, null, arguments.toArray(String[]::new)))
                .as("javac's exit code")
                .isZero();
        return dir.resolve("txoutbox-fixture/target/classes");
    }

    private static void jar(Path classes, Path jar) throws IOException {
        Files.createDirectories(jar.getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
    }

    private static Path file(Path path) throws IOException {
        Files.createDirectories(path.getParent());
        return Files.write(path, new byte[0]);
    }
}
