package io.txoutbox.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingNamesTest {
    @Test
    void every_setting_a_message_mentions_is_renamed_and_unknown_ones_are_kept() {
        Map<String, String> keys = Map.of(
                "Relay.Builder.leaseDuration", "sources[0].relay.lease-duration",
                "Relay.Builder.publishTimeout", "sources[0].relay.publish-timeout",
                "Backoff.base", "sources[0].relay.backoff.base");

        assertThat(SettingNames.rename(
                        "Relay.Builder.leaseDuration (10 ms) must be longer than Relay.Builder.publishTimeout (20 ms)",
                        keys::get))
                .isEqualTo("sources[0].relay.lease-duration (10 ms) must be longer than"
                        + " sources[0].relay.publish-timeout (20 ms)");
        assertThat(SettingNames.rename("Backoff.max is PT0.5S; it must be at least Backoff.base (PT1S)", keys::get))
                .isEqualTo("Backoff.max is PT0.5S; it must be at least sources[0].relay.backoff.base (PT1S)");
        assertThat(SettingNames.rename("OutboxEvent.payload is 2.0 MiB; see e.g. the README", keys::get))
                .isEqualTo("OutboxEvent.payload is 2.0 MiB; see e.g. the README");
    }

    @Test
    void java_names_become_kebab_case_and_fields_lose_their_type() {
        assertThat(SettingNames.kebab("batchSize")).isEqualTo("batch-size");
        assertThat(SettingNames.kebab("createSchemaIfMissing")).isEqualTo("create-schema-if-missing");
        assertThat(SettingNames.kebab("max")).isEqualTo("max");
        assertThat(SettingNames.field("Relay.Builder.batchSize")).isEqualTo("batchSize");
        assertThat(SettingNames.field("Backoff.fullJitter")).isEqualTo("fullJitter");
    }
}
