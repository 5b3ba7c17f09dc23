package io.txoutbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.settings.Spelling;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The meters' settings: a refusal names the setting as its caller wrote it, and the module README's table
 * is generated from {@link MetricsSettings} (rewritten with {@code ./mvnw -pl txoutbox-micrometer test
 * -Dtest=MetricsSettingsDocsTest -Dtxoutbox.regenerate=true}).
 */
class MetricsSettingsDocsTest {
    private static final Path README = Path.of("README.md");

    @Test
    void a_refusal_names_the_setting_in_the_callers_spelling() {
        SettingValues v = new SettingValues().set(MetricsSettings.PERCENTILES, new double[] {0.5, 1.5});
        assertThatThrownBy(() -> MetricsSettings.of(v, Spelling.keys("txoutbox.metrics")))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("txoutbox.metrics.percentiles is [0.5, 1.5]; it must hold numbers between 0 and 1 only");
        assertThatThrownBy(() -> OutboxMetrics.builder(null, null).set(io.txoutbox.relay.RelaySettings.NAME, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a setting of the meters");
        assertThat(MetricsSettings.of(new SettingValues(), Spelling.java("X")).percentiles())
                .containsExactly(0.5, 0.99);
    }

    @Test
    void the_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("metrics", SettingsTable.markdown(MetricsSettings.SETTINGS, s -> s.name())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
