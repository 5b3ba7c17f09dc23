package io.txoutbox.settings;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.OutboxSettings;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.RelaySettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's outbox, relay and backoff tables are generated from the descriptors: this test fails when they
 * drift, and rewrites them when run with {@code -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl
 * txoutbox-core test -Dtest=SettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class SettingsDocsTest {
    private static final Path README = Path.of("../README.md");

    @Test
    void the_readme_tables_are_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of(
                                "outbox",
                                SettingsTable.markdown(OutboxSettings.SETTINGS, s -> s.name()),
                                "relay",
                                SettingsTable.markdown(RelaySettings.SETTINGS, s -> s.name()),
                                "backoff",
                                SettingsTable.markdown(Backoff.SETTINGS, s -> "Backoff." + s.name())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
