package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.webhook.WebhookSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The server README's tables of the library's settings ({@code sources[]}, {@code sources[].relay}) are generated from the library's descriptors: this
 * test fails when they drift, and rewrites them when run with {@code -Dtxoutbox.regenerate=true} ({@code
 * ./mvnw -pl txoutbox-server test -Dtest=LibrarySettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class LibrarySettingsDocsTest {
    private static final Path README = Path.of("README.md");

    @Test
    void the_readme_tables_are_the_descriptors() throws IOException {
        String doc = Files.readString(README, StandardCharsets.UTF_8);
        String relay = SettingsTable.markdown(
                RelaySettings.SETTINGS.stream()
                        .filter(s -> s != RelaySettings.NAME)
                        .toList(),
                s -> s.key());
        String want = SettingsTable.replace(doc, "relay", relay);
        want = SettingsTable.replace(
                want, "source", SettingsTable.markdown(ConfigLoader.SOURCE_SETTINGS, s -> s.key()));
        want = SettingsTable.replace(
                want, "backoff", SettingsTable.markdown(Backoff.SETTINGS, s -> "backoff." + s.key()));
        want = SettingsTable.replace(want, "webhook", SettingsTable.markdown(WebhookSettings.SETTINGS, s -> s.key()));
        if (Boolean.getBoolean("txoutbox.regenerate")) {
            Files.writeString(README, want, StandardCharsets.UTF_8);
        }
        assertThat(doc)
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isEqualTo(want);
    }
}
