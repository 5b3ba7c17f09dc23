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

    /** The internal package's types, and classes outside it that expose them and that do not. */
    private static final Map<String, String> FIXTURES = Map.of(
            "fixture/internal/Hidden.java",
            "package fixture.internal; public class Hidden { public Hidden self() { return this; } }",
            "fixture/internal/HiddenBase.java",
            "package fixture.internal; public abstract class HiddenBase {}",
            "fixture/internal/HiddenFailure.java",
            "package fixture.internal; public class HiddenFailure extends Exception {"
                    + " private static final long serialVersionUID = 1L; }",
            "fixture/api/Exposing.java",
            """
            package fixture.api;
            import fixture.internal.Hidden;
            import java.util.List;
            public class Exposing {
                public Hidden hidden;
                public Exposing() {}
                public Exposing(Hidden hidden) { this.hidden = hidden; }
                public Hidden get() { return null; }
                protected List<Hidden> all() { return List.of(); }
                public void fail() throws fixture.internal.HiddenFailure {}
                public static final class Builder { public Builder with(Hidden hidden) { return this; } }
                protected static class Extension { public Hidden get() { return null; } }
            }
            """,
            "fixture/api/Bounded.java",
            "package fixture.api; public class Bounded<T extends fixture.internal.Hidden> {}",
            "fixture/api/Extending.java",
            "package fixture.api; public class Extending extends fixture.internal.HiddenBase {}",
            "fixture/api/Clean.java",
            """
            package fixture.api;
            import fixture.internal.Hidden;
            public class Clean {
                private Hidden hidden = new Hidden();
                Hidden packagePrivate() { return hidden; }
                public String shown() { return hidden.toString(); }
                private static final class Helper { public Hidden get() { return null; } }
                public Runnable task() { return () -> hidden.self(); }
                public Object anonymous() { return new Object() { public Hidden get() { return hidden; } }; }
            }
            """,
            "fixture/api/PackagePrivate.java",
            """
            package fixture.api;
            class PackagePrivate extends fixture.internal.HiddenBase {
                public fixture.internal.Hidden get() { return null; }
                public static class Nested { public fixture.internal.Hidden get() { return null; } }
            }
            """);

    @Test
    void a_public_member_superclass_or_signature_naming_an_internal_type_is_a_finding(@TempDir Path dir)
            throws IOException {
        Path classes = compile(dir);
        assertThat(InternalApiCheck.findings(classes))
                .containsExactly(
                        "fixture.api.Bounded exposes fixture.internal.Hidden in its declaration (txoutbox-fixture)",
                        "fixture.api.Exposing.hidden exposes fixture.internal.Hidden (txoutbox-fixture)",
                        "new fixture.api.Exposing(...) exposes fixture.internal.Hidden (txoutbox-fixture)",
                        "fixture.api.Exposing.get(...) exposes fixture.internal.Hidden (txoutbox-fixture)",
                        "fixture.api.Exposing.all(...) exposes fixture.internal.Hidden (txoutbox-fixture)",
                        "fixture.api.Exposing.fail(...) exposes fixture.internal.HiddenFailure (txoutbox-fixture)",
                        "fixture.api.Exposing$Builder.with(...) exposes fixture.internal.Hidden (txoutbox-fixture)",
                        "fixture.api.Exposing$Extension.get(...) exposes fixture.internal.Hidden (txoutbox-fixture)",
                        "fixture.api.Extending extends fixture.internal.HiddenBase (txoutbox-fixture)");
    }

    @Test
    void private_and_package_private_uses_and_the_internal_package_itself_are_not_findings(@TempDir Path dir)
            throws IOException {
        Path classes = compile(dir);
        List<String> findings = InternalApiCheck.findings(classes);
        assertThat(findings).noneMatch(f -> f.startsWith("fixture.api.Clean") || f.startsWith("fixture.internal."));
        assertThat(findings).noneMatch(f -> f.startsWith("fixture.api.PackagePrivate"));
        try (Stream<Path> files = Files.list(classes.resolve("fixture/api"))) {
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
                        "\n  fixture.api.Extending extends fixture.internal.HiddenBase (txoutbox-fixture)");
    }

    @Test
    void the_class_path_entries_checked_are_the_txoutbox_modules(@TempDir Path dir) throws IOException {
        Path module = Files.createDirectories(dir.resolve("txoutbox-kafka/target/classes"));
        Path tests = Files.createDirectories(dir.resolve("txoutbox-kafka/target/test-classes"));
        Path other = Files.createDirectories(dir.resolve("integration-tests/target/classes"));
        Path jar = file(dir.resolve("m2/io/txoutbox/txoutbox-core/0.1.0/txoutbox-core-0.1.0.jar"));
        Path testJar = file(dir.resolve("m2/io/txoutbox/txoutbox-server/0.1.0/txoutbox-server-0.1.0-tests.jar"));
        Path library = file(dir.resolve("m2/org/slf4j/slf4j-api/2.0.17/slf4j-api-2.0.17.jar"));
        Path missing = dir.resolve("txoutbox-redis/target/classes");
        String classPath = String.join(
                File.pathSeparator,
                Stream.of(module, tests, other, jar, testJar, library, missing)
                        .map(Path::toString)
                        .toList());
        assertThat(InternalApiCheck.modulesOn(classPath)).containsExactly(module, jar);
        assertThat(InternalApiCheck.moduleOf(module)).isEqualTo("txoutbox-kafka");
        assertThat(InternalApiCheck.moduleOf(jar)).isEqualTo("txoutbox-core");
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
