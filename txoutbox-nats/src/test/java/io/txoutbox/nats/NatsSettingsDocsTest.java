package io.txoutbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.settings.SettingsTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The module README's table of the publisher's settings is generated from {@link NatsSettings}: this
 * test fails when it drifts, and rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code
 * ./mvnw -pl txoutbox-nats test -Dtest=NatsSettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class NatsSettingsDocsTest {
    private static final Path README = Path.of("README.md");

    @Test
    void the_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("nats", SettingsTable.markdown(NatsSettings.SETTINGS, s -> s.name())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
