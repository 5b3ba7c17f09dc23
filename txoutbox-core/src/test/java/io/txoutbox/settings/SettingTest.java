package io.txoutbox.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingTest {
    private static final Setting<Integer> SIZE = Setting.builder("batchSize", Integer.class)
            .defaultValue(100)
            .between(1, 10_000)
            .doc("Rows per claim.")
            .build();
    private static final Setting<Duration> RETAIN = Setting.builder("retainPublished", Duration.class)
            .optional()
            .notNegativeUpTo(Duration.ofDays(10))
            .doc("How long rows are kept.")
            .build();

    @Test
    void a_refusal_names_the_setting_as_the_caller_spelled_it_with_value_and_limit() {
        for (String spelled :
                List.of("Relay.Builder.batchSize", "txoutbox.relay.batch-size", "sources[2].relay.batch-size")) {
            assertThatThrownBy(() -> SIZE.check(0, spelled))
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessage(spelled + " is 0; it must be between 1 and 10000")
                    .satisfies(e -> {
                        assertThat(((OutboxValidationException) e).field()).isEqualTo(spelled);
                        assertThat(((OutboxValidationException) e).limit()).isEqualTo("1..10000");
                    });
        }
    }

    @Test
    void unset_takes_the_default_and_an_optional_setting_stays_unset() {
        assertThat(SIZE.check(null, "x")).isEqualTo(100);
        assertThat(RETAIN.check(null, "x")).isNull();
        assertThatThrownBy(() -> RETAIN.check(Duration.ofDays(11), "sources[0].relay.retain-published"))
                .hasMessage("sources[0].relay.retain-published is 11d; it must be at most 10d");
        assertThatThrownBy(() -> RETAIN.check(Duration.ofSeconds(-1), "r"))
                .hasMessage("r is PT-1S; it must not be negative");
        Setting<String> required =
                Setting.builder("name", String.class).doc("A name.").build();
        assertThatThrownBy(() -> required.check(null, "Relay.Builder.name"))
                .hasMessage("Relay.Builder.name is missing; it is required");
    }

    @Test
    void spellings_name_a_setting_in_java_in_keys_and_by_exception() {
        assertThat(Spelling.java("Relay.Builder").of(SIZE)).isEqualTo("Relay.Builder.batchSize");
        assertThat(Spelling.keys("txoutbox.relay").of(SIZE)).isEqualTo("txoutbox.relay.batch-size");
        Spelling yaml = Spelling.keys("sources[0].relay").except(Map.of(SIZE, "sources[0].size"));
        assertThat(yaml.of(SIZE)).isEqualTo("sources[0].size");
        assertThat(yaml.of(RETAIN)).isEqualTo("sources[0].relay.retain-published");
        Setting<Boolean> jitter = Setting.builder("fullJitter", Boolean.class)
                .key("jitter")
                .defaultValue(true)
                .doc("Jitter.")
                .build();
        assertThat(Spelling.keys("b").of(jitter)).isEqualTo("b.jitter");
    }

    @Test
    void a_descriptor_refuses_a_default_that_breaks_its_own_rule_and_a_missing_doc() {
        assertThatThrownBy(() -> Setting.builder("size", Integer.class)
                        .defaultValue(0)
                        .between(1, 2)
                        .doc("d")
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("size is 0; it must be between 1 and 2");
        assertThatThrownBy(() -> Setting.builder("size", Integer.class).build()).hasMessageContaining("no doc");
        assertThatThrownBy(() -> Setting.builder("Size", Integer.class)).hasMessageContaining("camel case");
    }

    @Test
    void values_hold_what_was_given_and_check_it_on_demand() {
        SettingValues v = new SettingValues().set(SIZE, 5);
        assertThat(v.isSet(SIZE)).isTrue();
        assertThat(v.checked(SIZE, Spelling.java("B"))).isEqualTo(5);
        SettingValues copy = v.copy().set(SIZE, null);
        assertThat(copy.isSet(SIZE)).isFalse();
        assertThat(copy.checked(SIZE, Spelling.java("B"))).isEqualTo(100);
        assertThat(v.given(SIZE)).as("a copy is independent").isEqualTo(5);
    }

    @Test
    void durations_read_as_the_properties_write_them() {
        assertThat(Setting.show(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(Setting.show(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Setting.show(Duration.ofSeconds(2))).isEqualTo("2s");
        assertThat(Setting.show(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(Setting.show(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(Setting.show(Duration.ofDays(1))).isEqualTo("1d");
        assertThat(Setting.show(Duration.ZERO)).isEqualTo("0s");
        assertThat(Setting.show(Duration.ofNanos(1500))).isEqualTo("PT0.0000015S");
        assertThat(Setting.show(Duration.ofSeconds(Long.MAX_VALUE, 999_000_000)))
                .isEqualTo(Duration.ofSeconds(Long.MAX_VALUE, 999_000_000).toString());
    }

    @Test
    void a_text_is_quoted_with_control_characters_escaped_and_cut() {
        assertThat(Setting.show("a\nb\u0000c\ud800")).isEqualTo("'a\\nb\\u0000c\\ud800'");
        assertThat(Setting.show("x".repeat(200))).isEqualTo("'" + "x".repeat(80) + "' (200 characters)");
    }

    @Test
    void a_stale_table_is_reported_and_rewritten_only_on_request(@TempDir Path dir) throws IOException {
        Path doc = dir.resolve("README.md");
        Files.writeString(doc, "a\n<!-- settings:relay -->\nold\n<!-- /settings:relay -->\nb");
        Map<String, String> tables = Map.of("relay", "new\n");
        assertThat(SettingsTable.current(doc, tables, false)).isFalse();
        assertThat(Files.readString(doc)).as("not rewritten").contains("old");
        assertThat(SettingsTable.current(doc, tables, true))
                .as("the rewriting run still fails")
                .isFalse();
        assertThat(SettingsTable.current(doc, tables, false)).isTrue();
        assertThat(Files.readString(doc)).isEqualTo("a\n<!-- settings:relay -->\nnew\n<!-- /settings:relay -->\nb");
    }

    @Test
    void the_table_shows_each_setting_once_with_default_limits_and_doc() {
        String table = SettingsTable.markdown(List.of(SIZE, RETAIN), Spelling.keys("txoutbox.relay"));
        assertThat(table)
                .contains("| `txoutbox.relay.batch-size` | 100 | 1..10000 | Rows per claim. |")
                .contains("| `txoutbox.relay.retain-published` | none | >= 0, <= 10d | How long rows are kept. |");
        String doc = "a\n<!-- settings:relay -->\nold\n<!-- /settings:relay -->\nb";
        assertThat(SettingsTable.replace(doc, "relay", "new\n"))
                .isEqualTo("a\n<!-- settings:relay -->\nnew\n<!-- /settings:relay -->\nb");
        assertThatThrownBy(() -> SettingsTable.replace("none", "relay", "t"))
                .isInstanceOf(IllegalArgumentException.class);
        Setting<String> piped = Setting.builder("id", String.class)
                .matching(Pattern.compile("a|b"), "be a or b")
                .defaultValue("a")
                .doc("One | two in <table>_x.")
                .build();
        assertThat(SettingsTable.markdown(List.of(piped), Spelling.java("X")))
                .contains("| `X.id` | a | a\\|b | One \\| two in &lt;table>_x. |");
    }
}
