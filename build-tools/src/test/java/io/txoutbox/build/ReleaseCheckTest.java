package io.txoutbox.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReleaseCheckTest {

    private static final String VERSION = "0.1.0";
    private static final String PARENT_FIELDS = """
            <url>https://github.com/txoutbox/txoutbox</url>
            <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
            <developers><developer><id>txoutbox</id><name>The txoutbox authors</name></developer></developers>
            <scm><connection>scm:git:https://github.com/txoutbox/txoutbox.git</connection><url>https://github.com/txoutbox/txoutbox</url></scm>
            """;

    @TempDir
    Path repo;

    @BeforeEach
    void stage_a_complete_release() throws Exception {
        stagePom("txoutbox-parent", VERSION, parentPom(PARENT_FIELDS));
        stagePom("txoutbox-core", VERSION, modulePom("txoutbox-core", "<description>The core.</description>"));
        stageJars("txoutbox-core", VERSION, "META-INF/LICENSE", "META-INF/NOTICE");
    }

    @Test
    void complete_release_passes() throws Exception {
        assertThat(check(false)).isEmpty();
    }

    @Test
    void module_without_its_javadoc_jar_fails_naming_the_file() throws Exception {
        Files.delete(file("txoutbox-core", VERSION, "txoutbox-core-0.1.0-javadoc.jar"));

        assertThat(check(false)).containsExactly("txoutbox-core: no txoutbox-core-0.1.0-javadoc.jar");
    }

    @Test
    void module_without_its_sources_jar_fails_naming_the_file() throws Exception {
        Files.delete(file("txoutbox-core", VERSION, "txoutbox-core-0.1.0-sources.jar"));

        assertThat(check(false)).containsExactly("txoutbox-core: no txoutbox-core-0.1.0-sources.jar");
    }

    @Test
    void pom_fields_missing_from_the_module_and_its_parent_fail_each_by_name() throws Exception {
        stagePom("txoutbox-parent", VERSION, parentPom(""));
        stagePom("txoutbox-core", VERSION, modulePom("txoutbox-core", ""));

        assertThat(check(false))
                .containsExactly(
                        "txoutbox-core: pom has no description",
                        "txoutbox-core: pom has no url",
                        "txoutbox-core: pom has no licence with a name and a URL",
                        "txoutbox-core: pom has no developer",
                        "txoutbox-core: pom has no scm with a connection and a URL",
                        "txoutbox-parent: pom has no url",
                        "txoutbox-parent: pom has no licence with a name and a URL",
                        "txoutbox-parent: pom has no developer",
                        "txoutbox-parent: pom has no scm with a connection and a URL");
    }

    @Test
    void jar_without_the_licence_files_fails() throws Exception {
        stageJars("txoutbox-core", VERSION, "META-INF/MANIFEST.MF");

        assertThat(check(false))
                .containsExactly(
                        "txoutbox-core: txoutbox-core-0.1.0.jar has no META-INF/LICENSE",
                        "txoutbox-core: txoutbox-core-0.1.0.jar has no META-INF/NOTICE");
    }

    @Test
    void checksum_that_does_not_match_its_file_fails() throws Exception {
        Files.writeString(file("txoutbox-core", VERSION, "txoutbox-core-0.1.0.jar.sha1"), "0".repeat(40));

        assertThat(check(false))
                .containsExactly("txoutbox-core: txoutbox-core-0.1.0.jar.sha1 does not match txoutbox-core-0.1.0.jar");
    }

    @Test
    void signed_release_needs_a_signature_beside_each_file() throws Exception {
        assertThat(check(true))
                .contains(
                        "txoutbox-core: no txoutbox-core-0.1.0.pom.asc",
                        "txoutbox-core: no txoutbox-core-0.1.0.jar.asc",
                        "txoutbox-parent: no txoutbox-parent-0.1.0.pom.asc")
                .hasSize(5);
    }

    @Test
    void module_staged_but_not_listed_and_listed_but_not_staged_both_fail() throws Exception {
        stagePom("txoutbox-demo", VERSION, modulePom("txoutbox-demo", "<description>Not published.</description>"));

        assertThat(ReleaseCheck.check(
                        repo,
                        "io.txoutbox",
                        VERSION,
                        List.of("txoutbox-parent", "txoutbox-core", "txoutbox-kafka"),
                        false))
                .containsExactly(
                        "txoutbox-demo: staged, but not in the list of published modules",
                        "txoutbox-kafka: not staged (no io/txoutbox/txoutbox-kafka/0.1.0)");
    }

    @Test
    void snapshot_files_are_found_under_the_timestamp_of_the_last_deploy() throws Exception {
        String snapshot = "0.2.0-SNAPSHOT";
        String stamped = "0.2.0-20261202.014500-3";
        stagePom("txoutbox-parent", stamped, snapshot, parentPom(PARENT_FIELDS).replace(VERSION, snapshot));
        stagePom(
                "txoutbox-core",
                stamped,
                snapshot,
                modulePom("txoutbox-core", "<description>The core.</description>")
                        .replace(VERSION, snapshot));
        stageJars("txoutbox-core", stamped, snapshot, List.of("META-INF/LICENSE", "META-INF/NOTICE"));
        for (String module : List.of("txoutbox-parent", "txoutbox-core")) {
            Files.writeString(
                    repo.resolve("io/txoutbox/" + module + "/" + snapshot + "/maven-metadata.xml"),
                    "<metadata><versioning><snapshot><timestamp>20261202.014500</timestamp>"
                            + "<buildNumber>3</buildNumber></snapshot></versioning></metadata>");
        }

        assertThat(ReleaseCheck.check(
                        repo, "io.txoutbox", snapshot, List.of("txoutbox-parent", "txoutbox-core"), false))
                .isEmpty();
    }

    private List<String> check(boolean signed) throws IOException {
        return ReleaseCheck.check(repo, "io.txoutbox", VERSION, List.of("txoutbox-core", "txoutbox-parent"), signed);
    }

    private static String parentPom(String fields) {
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <groupId>io.txoutbox</groupId><artifactId>txoutbox-parent</artifactId><version>0.1.0</version>
                  <packaging>pom</packaging><name>txoutbox (parent)</name><description>The parent.</description>
                """ + fields + "</project>";
    }

    private static String modulePom(String artifactId, String description) {
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <parent><groupId>io.txoutbox</groupId><artifactId>txoutbox-parent</artifactId><version>0.1.0</version></parent>
                """ + "<artifactId>" + artifactId + "</artifactId><name>" + artifactId + "</name>" + description
                + "</project>";
    }

    private void stagePom(String artifactId, String version, String pom) throws Exception {
        stagePom(artifactId, version, version, pom);
    }

    private void stagePom(String artifactId, String fileVersion, String version, String pom) throws Exception {
        stage(file(artifactId, version, artifactId + "-" + fileVersion + ".pom"), pom.getBytes(StandardCharsets.UTF_8));
    }

    private void stageJars(String artifactId, String version, String... entries) throws Exception {
        stageJars(artifactId, version, version, List.of(entries));
    }

    private void stageJars(String artifactId, String fileVersion, String version, List<String> entries)
            throws Exception {
        for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
            Path jar = file(artifactId, version, artifactId + "-" + fileVersion + suffix);
            Files.createDirectories(jar.getParent());
            try (OutputStream out = Files.newOutputStream(jar);
                    ZipOutputStream zip = new ZipOutputStream(out)) {
                for (String entry : entries) {
                    zip.putNextEntry(new ZipEntry(entry));
                    zip.write(entry.getBytes(StandardCharsets.UTF_8));
                    zip.closeEntry();
                }
            }
            stage(jar, Files.readAllBytes(jar));
        }
    }

    /** Writes a file and its checksums, as maven-deploy-plugin does. */
    private static void stage(Path file, byte[] bytes) throws Exception {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
        for (String algorithm : List.of("MD5", "SHA-1")) {
            String sum = HexFormat.of()
                    .formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
            Files.writeString(
                    file.resolveSibling(file.getFileName() + "."
                            + algorithm.replace("-", "").toLowerCase()),
                    sum);
        }
    }

    private Path file(String artifactId, String version, String name) {
        return repo.resolve("io/txoutbox").resolve(artifactId).resolve(version).resolve(name);
    }
}
