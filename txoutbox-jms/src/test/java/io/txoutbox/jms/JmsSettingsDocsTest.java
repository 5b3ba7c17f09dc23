package io.txoutbox.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.settings.SettingsTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module README's table of the publisher's settings is generated from {@link JmsSettings}: this test
 * fails when it drifts, and rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code ./mvnw
 * -pl txoutbox-jms test -Dtest=JmsSettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class JmsSettingsDocsTest {
    private static final Path README = Path.of("README.md");

    @Test
    void the_readme_table_is_the_descriptors() throws IOException {
        String doc = Files.readString(README, StandardCharsets.UTF_8);
        String want = SettingsTable.replace(doc, "jms", SettingsTable.markdown(JmsSettings.SETTINGS, s -> s.name()));
        if (Boolean.getBoolean("txoutbox.regenerate")) {
            Files.writeString(README, want, StandardCharsets.UTF_8);
        }
        assertThat(doc)
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isEqualTo(want);
    }
}
