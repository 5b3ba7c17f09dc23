package io.txoutbox.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.settings.SettingsTable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The module README's table of the publisher's settings is generated from {@link MqttSettings}: this test
 * fails when it drifts, and rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl
 * txoutbox-mqtt test -Dtest=MqttSettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class MqttSettingsDocsTest {
    private static final Path README = Path.of("README.md");

    @Test
    void the_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("mqtt", SettingsTable.markdown(MqttSettings.SETTINGS, s -> s.name())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
