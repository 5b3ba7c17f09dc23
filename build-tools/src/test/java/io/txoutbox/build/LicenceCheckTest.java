package io.txoutbox.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LicenceCheckTest {

    private static final String ALLOWED = "org.example:allowed:1.0";
    private static final String DUAL = "org.example:dual:2.0";
    private static final String EXPRESSION = "org.example:expression:3.0";
    private static final String UNLICENSED = "org.example:unlicensed:4.0";
    private static final String COPYLEFT = "org.example:copyleft:5.0";

    @TempDir
    Path dir;

    @Test
    void sbom_with_an_unlicensed_and_a_forbidden_component_fails_the_build_and_writes_no_notice_list()
            throws Exception {
        Path out = dir.resolve("META-INF/THIRD-PARTY.txt");

        // Copied, so that it is written after the test JVM started, as the build's SBOM is.
        Path bom = Files.copy(fixture("bom-unknown-licence.xml"), dir.resolve("bom.xml"));

        assertThatThrownBy(() -> LicenceCheck.main(new String[] {
                    bom.toString(), fixture("allow-list.txt").toString(), out.toString(), "txoutbox-server 0.1.0"
                }))
                .isInstanceOfSatisfying(LicenceCheckException.class, e -> assertThat(e.failures())
                        .containsExactly(
                                COPYLEFT + " is licensed under GNU General Public License v3.0, which is not on the"
                                        + " allow list " + fixture("allow-list.txt"),
                                UNLICENSED + " declares no licence: review it and add a 'component' line to "
                                        + fixture("allow-list.txt")));
        assertThat(out).doesNotExist();
    }

    @Test
    void component_whose_pom_declares_no_licence_passes_with_the_reviewed_licence_and_its_reason() throws Exception {
        AllowList list = AllowList.parse(
                "test",
                List.of(
                        "licence Apache-2.0",
                        "licence EPL-2.0",
                        "licence MIT",
                        "component org.example:unlicensed MIT -- LICENSE.txt in its jar",
                        "component org.example:copyleft Apache-2.0 -- relicensed in 5.0, see its README"));

        String notices = LicenceCheck.check(components(), list, "txoutbox-server 0.1.0", "test");

        assertThat(notices)
                .startsWith("Third-party software bundled in txoutbox-server 0.1.0\n")
                .contains("5 components:")
                .contains(ALLOWED + "\n    licence: Apache-2.0\n    web site: https://example.org/allowed\n")
                .contains(UNLICENSED + "\n    licence: MIT (reviewed: LICENSE.txt in its jar)\n")
                .contains(COPYLEFT + "\n    licence: Apache-2.0 (reviewed: relicensed in 5.0, see its README)\n");
    }

    @Test
    void reviewed_licence_that_is_not_allowed_fails_like_a_declared_one() throws Exception {
        AllowList list = AllowList.parse(
                "test",
                List.of(
                        "licence Apache-2.0",
                        "licence EPL-2.0",
                        "licence MIT",
                        "component org.example:unlicensed MIT -- LICENSE.txt in its jar",
                        "component org.example:copyleft AGPL-3.0-only -- COPYING in its jar"));

        assertThatThrownBy(() -> LicenceCheck.check(components(), list, "t", "test"))
                .isInstanceOfSatisfying(LicenceCheckException.class, e -> assertThat(e.failures())
                        .containsExactly(COPYLEFT + " is licensed under AGPL-3.0-only, which is not on the allow"
                                + " list test"));
    }

    @Test
    void exception_accepts_one_component_under_its_declared_licence_and_no_other() throws Exception {
        List<String> base = List.of(
                "licence Apache-2.0",
                "licence EPL-2.0",
                "licence MIT",
                "component org.example:unlicensed MIT -- LICENSE.txt in its jar");
        AllowList accepted = AllowList.parse(
                "test",
                concat(base, "exception org.example:copyleft GNU General Public License v3.0 -- a separate tool"));
        AllowList stale = AllowList.parse(
                "test", concat(base, "exception org.example:copyleft LGPL-2.1-only -- what 4.0 was under"));

        assertThat(LicenceCheck.check(components(), accepted, "t", "test"))
                .contains(COPYLEFT + "\n    licence: GNU General Public License v3.0 (accepted for this component:"
                        + " a separate tool)\n");
        assertThat(AllowList.parse("test", base).allows("GNU General Public License v3.0"))
                .isFalse();
        assertThatThrownBy(() -> LicenceCheck.check(components(), stale, "t", "test"))
                .isInstanceOfSatisfying(LicenceCheckException.class, e -> assertThat(e.failures())
                        .containsExactly(COPYLEFT + " is licensed under GNU General Public License v3.0, which is"
                                + " not on the allow list test"));
    }

    @Test
    void one_allowed_licence_of_several_or_one_allowed_side_of_an_expression_is_enough() throws Exception {
        AllowList list = AllowList.parse("test", List.of("licence EPL-2.0", "licence MIT"));

        List<LicenceCheck.Component> dualAndExpression = components().stream()
                .filter(c -> c.coordinates().equals(DUAL) || c.coordinates().equals(EXPRESSION))
                .toList();

        assertThat(LicenceCheck.check(dualAndExpression, list, "t", "test"))
                .contains(DUAL + "\n    licence: GPL-2.0-only / EPL-2.0\n")
                .contains(EXPRESSION + "\n    licence: (GPL-2.0-only WITH Classpath-exception-2.0 OR MIT)\n");
    }

    @Test
    void expression_needs_every_term_of_one_alternative_and_an_exception_is_part_of_its_term() {
        AllowList list =
                AllowList.parse("test", List.of("licence MIT", "licence GPL-2.0-only WITH Classpath-exception-2.0"));

        assertThat(list.allows("GPL-2.0-only WITH Classpath-exception-2.0 OR EPL-2.0"))
                .isTrue();
        assertThat(list.allows("GPL-2.0-only")).isFalse();
        assertThat(list.allows("MIT AND BSD-3-Clause")).isFalse();
        assertThat(list.allows("(MIT AND BSD-3-Clause) OR mit")).isTrue();
        assertThat(list.allows("  mit ")).isTrue();
    }

    @Test
    void sbom_reader_takes_ids_names_expressions_and_the_web_site() throws Exception {
        assertThat(components())
                .extracting(LicenceCheck.Component::coordinates, LicenceCheck.Component::licences)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(ALLOWED, List.of("Apache-2.0")),
                        org.assertj.core.groups.Tuple.tuple(DUAL, List.of("GPL-2.0-only", "EPL-2.0")),
                        org.assertj.core.groups.Tuple.tuple(
                                EXPRESSION, List.of("(GPL-2.0-only WITH Classpath-exception-2.0 OR MIT)")),
                        org.assertj.core.groups.Tuple.tuple(UNLICENSED, List.of()),
                        org.assertj.core.groups.Tuple.tuple(COPYLEFT, List.of("GNU General Public License v3.0")));
    }

    @Test
    void sbom_left_by_an_earlier_build_is_refused_and_so_is_a_missing_one() throws Exception {
        Path bom = Files.copy(fixture("bom-unknown-licence.xml"), dir.resolve("bom.xml"));
        Instant buildStart = Instant.parse("2026-12-02T02:00:00Z");
        Files.setLastModifiedTime(bom, FileTime.from(buildStart.minusSeconds(60)));

        assertThatThrownBy(() -> LicenceCheck.requireFresh(bom, buildStart))
                .isInstanceOf(IOException.class)
                .hasMessage("the SBOM at " + bom + " is from an earlier build (written 2026-12-02T01:59:00Z, this"
                        + " build started 2026-12-02T02:00:00Z): cyclonedx-maven-plugin did not write it again (it"
                        + " skips itself in an offline build, -o; build online)");
        assertThatThrownBy(() -> LicenceCheck.requireFresh(dir.resolve("none.xml"), buildStart))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("no SBOM at " + dir.resolve("none.xml"));

        Files.setLastModifiedTime(bom, FileTime.from(buildStart.plusSeconds(1)));
        LicenceCheck.requireFresh(bom, buildStart);
    }

    @Test
    void file_that_is_not_a_cyclonedx_sbom_is_refused() throws Exception {
        Path notBom = Files.writeString(dir.resolve("pom.xml"), "<project/>");

        assertThatThrownBy(() -> LicenceCheck.read(notBom))
                .isInstanceOf(IOException.class)
                .hasMessage(notBom + " is not a CycloneDX SBOM: its root is project");
    }

    @Test
    void allow_list_line_of_another_form_is_refused_with_its_line_number() {
        assertThatThrownBy(() -> AllowList.parse(
                        "list.txt", List.of("# ok", "licence MIT", "MIT", "component org.example:x MIT")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("list.txt:3: a line starts with 'licence ', 'component ', 'exception ' or '#'\n"
                        + "list.txt:4: component line is 'component <groupId>:<artifactId> <licence> -- <reason>'");
    }

    @Test
    void the_repository_allow_list_reads_and_allows_no_strong_copyleft() throws Exception {
        AllowList list = AllowList.read(Path.of("../build/licence-allow-list.txt"));

        assertThat(list.allows("Apache-2.0")).isTrue();
        for (String copyleft : List.of("GPL-2.0-only", "GPL-3.0-only", "AGPL-3.0-only", "LGPL-2.1-only", "SSPL-1.0")) {
            assertThat(list.allows(copyleft)).as(copyleft).isFalse();
        }
    }

    private static List<String> concat(List<String> lines, String line) {
        List<String> all = new java.util.ArrayList<>(lines);
        all.add(line);
        return all;
    }

    private static List<LicenceCheck.Component> components() throws Exception {
        return LicenceCheck.read(fixture("bom-unknown-licence.xml"));
    }

    private static Path fixture(String name) {
        try {
            return Path.of(LicenceCheckTest.class.getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
