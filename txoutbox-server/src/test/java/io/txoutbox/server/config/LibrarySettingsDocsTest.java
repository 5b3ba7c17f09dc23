package io.txoutbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.webhook.WebhookSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server README's tables of the library's settings ({@code sources[]}, {@code sources[].relay}, the
 * webhook's) are generated from the library's descriptors: this test fails when they drift, and rewrites them when run with {@code -Dtxoutbox.regenerate=true} ({@code
 * ./mvnw -pl txoutbox-server test -Dtest=LibrarySettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class LibrarySettingsDocsTest {
    private static final Path README = Path.of("README.md");

    @Test
    void the_readme_tables_are_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of(
                                "relay",
                                SettingsTable.markdown(
                                        RelaySettings.SETTINGS.stream()
                                                .filter(s -> s != RelaySettings.NAME)
                                                .toList(),
                                        s -> s.key()),
                                "source",
                                SettingsTable.markdown(ConfigLoader.SOURCE_SETTINGS, s -> s.key()),
                                "backoff",
                                SettingsTable.markdown(Backoff.SETTINGS, s -> "backoff." + s.key()),
                                "webhook",
                                SettingsTable.markdown(WebhookSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
