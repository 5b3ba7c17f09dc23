package io.txoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.micrometer.MetricsSettings;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.settings.Spelling;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The IDE metadata of the library's properties ({@code txoutbox.*}, {@code txoutbox.relay.*}) and the
 * README's tables of them are
 * generated from the library's descriptors: this test fails when the committed files drift from them, and rewrites it when run with {@code
 * -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl txoutbox-spring-boot-starter test
 * -Dtest=LibraryPropertiesDocsTest -Dtxoutbox.regenerate=true}). Spring's annotation processor merges
 * the file into the jar's {@code spring-configuration-metadata.json}.
 */
class LibraryPropertiesDocsTest {
    private static final Path FILE =
            Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");

    @Test
    void the_committed_metadata_is_the_one_the_descriptors_give() throws IOException {
        String expected = metadata();
        if (Boolean.getBoolean("txoutbox.regenerate")) {
            Files.writeString(FILE, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isEqualTo(expected);
    }

    @Test
    void the_jars_metadata_has_every_library_setting() throws IOException {
        Path built = Path.of("target/classes/META-INF/spring-configuration-metadata.json");
        String json = Files.readString(built, StandardCharsets.UTF_8);
        for (Setting<?> s : RelaySettings.SETTINGS) {
            assertThat(json).contains("\"name\": \"" + LibraryProperties.RELAY_PREFIX + "." + s.key() + "\"");
        }
        for (Setting<?> s : MetricsSettings.SETTINGS) {
            assertThat(json).contains("\"name\": \"" + LibraryProperties.METRICS_PREFIX + "." + s.key() + "\"");
        }
        for (Setting<?> s : LibraryProperties.OUTBOX) {
            assertThat(json).contains("\"name\": \"" + LibraryProperties.PREFIX + "." + s.key() + "\"");
        }
        assertThat(json).contains("\"name\": \"txoutbox.relay.enabled\"");
    }

    @Test
    void the_readme_tables_are_the_descriptors() throws IOException {
        Path readme = Path.of("README.md");
        assertThat(SettingsTable.current(
                        readme,
                        Map.of(
                                "outbox",
                                SettingsTable.markdown(
                                        LibraryProperties.OUTBOX, Spelling.keys(LibraryProperties.PREFIX)),
                                "relay",
                                SettingsTable.markdown(
                                        RelaySettings.SETTINGS, Spelling.keys(LibraryProperties.RELAY_PREFIX)),
                                "backoff",
                                SettingsTable.markdown(
                                        Backoff.SETTINGS, Spelling.keys(LibraryProperties.BACKOFF_PREFIX)),
                                "metrics",
                                SettingsTable.markdown(
                                        MetricsSettings.SETTINGS, Spelling.keys(LibraryProperties.METRICS_PREFIX))),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }

    static String metadata() {
        List<String> entries = new ArrayList<>();
        LibraryProperties.OUTBOX.forEach(s -> entries.add(entry(LibraryProperties.PREFIX, s)));
        RelaySettings.SETTINGS.forEach(s -> entries.add(entry(LibraryProperties.RELAY_PREFIX, s)));
        Backoff.SETTINGS.forEach(s -> entries.add(entry(LibraryProperties.BACKOFF_PREFIX, s)));
        MetricsSettings.SETTINGS.forEach(s -> entries.add(entry(LibraryProperties.METRICS_PREFIX, s)));
        return "{\n  \"properties\": [\n" + String.join(",\n", entries) + "\n  ]\n}\n";
    }

    private static String entry(String prefix, Setting<?> s) {
        StringBuilder e = new StringBuilder("    {\n");
        e.append("      \"name\": ").append(quote(prefix + "." + s.key())).append(",\n");
        e.append("      \"type\": ").append(quote(s.type().getCanonicalName())).append(",\n");
        String limits = s.limits().isEmpty() ? "" : " Limits: " + s.limits() + ".";
        e.append("      \"description\": ").append(quote(s.doc() + limits));
        Object d = s.defaultValue();
        if (d != null) {
            e.append(",\n      \"defaultValue\": ")
                    .append(
                            d instanceof Number || d instanceof Boolean
                                    ? d.toString()
                                    : d instanceof double[] a ? Arrays.toString(a) : quote(s.defaultText()));
        }
        return e.append("\n    }").toString();
    }

    private static String quote(String text) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        q.append(String.format("\\u%04x", (int) c));
                    } else {
                        q.append(c);
                    }
                }
            }
        }
        return q.append('"').toString();
    }
}
