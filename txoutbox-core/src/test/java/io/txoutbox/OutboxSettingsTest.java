package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxSettingsTest {
    private static final Spelling SPRING = Spelling.keys("txoutbox");
    private static final Spelling YAML = Spelling.keys("sources[0]");

    @Test
    void a_refusal_names_the_setting_in_the_callers_spelling() {
        assertThatThrownBy(() -> OutboxSettings.of(
                        new SettingValues().set(OutboxSettings.TABLE, "Bad-Name"),
                        OutboxTable.Columns.DEFAULT,
                        null,
                        SPRING))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("txoutbox.table is 'Bad-Name'; it must be a table name")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).field()).isEqualTo("txoutbox.table"));
        assertThatThrownBy(() -> OutboxSettings.of(
                        new SettingValues()
                                .set(OutboxSettings.CREATE_SCHEMA, true)
                                .set(OutboxSettings.MAX_PAYLOAD_BYTES, 0),
                        OutboxTable.Columns.DEFAULT,
                        null,
                        YAML))
                .hasMessage("sources[0].max-payload-bytes is 0; it must be between 1 and 67108864");
        assertThat(YAML.of(OutboxSettings.CREATE_SCHEMA))
                .as("the Java name is createSchemaIfMissing, the key create-schema")
                .isEqualTo("sources[0].create-schema");
    }

    @Test
    void a_rule_that_needs_the_database_names_the_setting_as_given_once_the_dialect_is_known() {
        OutboxSettings read = OutboxSettings.of(
                new SettingValues().set(OutboxSettings.PUBLISHED_PARTITIONS, Duration.ofDays(1)),
                OutboxTable.Columns.DEFAULT,
                null,
                YAML);
        assertThatThrownBy(() -> read.withDialect(Dialect.MARIADB))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("sources[0].published-partitions needs PostgreSQL's declarative partitions;");
        assertThatThrownBy(() ->
                        Outbox.builder(null).settings(read).dialect(Dialect.H2).validate())
                .as("the builder keeps the spelling of the settings it was given")
                .hasMessageStartingWith("sources[0].published-partitions needs PostgreSQL's");
        assertThatThrownBy(() -> Outbox.builder(null)
                        .settings(read)
                        .publishedPartitions(Duration.ofMinutes(30))
                        .validate())
                .as("a setting changed in Java is named in Java")
                .hasMessage("Outbox.Builder.publishedPartitions is 30m; it must be a whole number of hours between"
                        + " 1 hour and 31 days");
        assertThat(read.withDialect(Dialect.POSTGRESQL).publishedPartitions()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void contradictions_name_both_settings_in_one_spelling() {
        SettingValues v = new SettingValues()
                .set(OutboxSettings.CHANGE_DATA_CAPTURE, true)
                .set(OutboxSettings.FAIR_CLAIMS, ClaimFairness.TENANT);
        assertThatThrownBy(() -> OutboxSettings.of(v, OutboxTable.Columns.DEFAULT, null, YAML))
                .hasMessageStartingWith(
                        "sources[0].fair-claims and sources[0].change-data-capture contradict each" + " other");
        SettingValues fair = new SettingValues().set(OutboxSettings.FAIR_CLAIMS, ClaimFairness.TENANT);
        assertThatThrownBy(() -> OutboxSettings.of(fair, OutboxTable.Columns.DEFAULT, Dialect.MARIADB, YAML))
                .hasMessageStartingWith(
                        "sources[0].fair-claims is TENANT, which the mariadb dialect does not" + " support");
        Spelling mixed = YAML.except(Map.of(OutboxSettings.CHANGE_DATA_CAPTURE, "Outbox.Builder.changeDataCapture"));
        assertThatThrownBy(() -> OutboxSettings.of(v, OutboxTable.Columns.DEFAULT, null, mixed))
                .hasMessageContaining("and Outbox.Builder.changeDataCapture contradict");
    }

    @Test
    void the_defaults_are_the_outboxs() {
        OutboxSettings d = OutboxSettings.of(new SettingValues(), OutboxTable.Columns.DEFAULT, null, SPRING);
        assertThat(d.table().qualifiedName()).isEqualTo(OutboxTable.DEFAULT_NAME);
        assertThat(d.maxPayloadBytes()).isEqualTo(1024 * 1024);
        assertThat(d.notifyWindow()).isEqualTo(Duration.ofMillis(2));
        assertThat(d.validateSchema()).isTrue();
        assertThat(d.ordered()).isNull();
        assertThatThrownBy(() -> Outbox.builder(null).set(io.txoutbox.relay.RelaySettings.BATCH_SIZE, 1))
                .hasMessageContaining("not a setting of an outbox");
    }
}
