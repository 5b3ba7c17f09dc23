package io.txoutbox.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The generator and the check, without a database: what each rule catches, and the docs stay generated. */
class DebeziumOutboxConfigTest {
    private static final OutboxTable TABLE = OutboxTable.of("outbox");

    /** The example of the module's README. */
    static DebeziumOutboxConfig readmeExample() {
        return DebeziumOutboxConfig.builder(TABLE)
                .database("db.example.com", 5432, "shop", "debezium", "${file:/opt/connect/secrets.properties:pg}")
                .topicPrefix("shop")
                .build();
    }

    @Test
    void generated_configurations_pass_the_check_for_every_mapping() throws IOException {
        for (OutboxTable.Columns columns : new OutboxTable.Columns[] {
            OutboxTable.Columns.DEFAULT,
            OutboxTable.Columns.DEBEZIUM,
            new OutboxTable.Columns("event_id", "kind", "entity_id", "what", "body")
        }) {
            OutboxTable table = OutboxTable.of("events.outbox").withColumns(columns);
            DebeziumOutboxConfig config = DebeziumOutboxConfig.builder(table).build();
            assertThat(DebeziumOutboxConfig.check(table, config.kafkaConnectProperties()))
                    .as("Kafka Connect, %s", columns)
                    .isEmpty();
            Properties server = new Properties();
            server.load(new StringReader(config.debeziumServerProperties()));
            Map<String, String> serverMap = new LinkedHashMap<>();
            server.stringPropertyNames().forEach(k -> serverMap.put(k, server.getProperty(k)));
            assertThat(DebeziumOutboxConfig.check(table, serverMap))
                    .as("Debezium Server, %s", columns)
                    .isEmpty();
        }
    }

    @Test
    void each_setting_that_does_not_fit_is_named_with_its_column() {
        assertThat(problemsAfter("transforms.outbox.table.field.event.id", "event_id"))
                .containsExactly("transforms.outbox.table.field.event.id is 'event_id', but the outbox's id column is"
                        + " 'id' (txoutbox.columns.id)");
        assertThat(problemsAfter("transforms.outbox.table.field.event.key", null))
                .containsExactly("transforms.outbox.table.field.event.key is 'aggregateid' (the router's default),"
                        + " but the outbox's aggregate-id column is 'aggregate_id' (txoutbox.columns.aggregate-id)");
        assertThat(problemsAfter("transforms.outbox.table.field.event.payload", "body"))
                .singleElement()
                .asString()
                .contains("payload column is 'payload'");
        assertThat(problemsAfter("transforms.outbox.route.by.field", "aggregatetype"))
                .singleElement()
                .asString()
                .contains("route.by.field is 'aggregatetype', but the outbox's aggregate-type column is"
                        + " 'aggregate_type'");
        assertThat(problemsAfter("transforms.outbox.table.fields.additional.placement", "type:header:eventType"))
                .anySatisfy(p -> assertThat(p).contains("places column 'type', which the outbox table does not have"))
                .anySatisfy(p -> assertThat(p).contains("does not place the event-type column 'event_type'"));
        assertThat(problemsAfter("table.include.list", "public\\.orders"))
                .containsExactly(
                        "table.include.list is 'public\\.orders': it must match the outbox table" + " 'public.outbox'");
        assertThat(problemsAfter("value.converter", "org.apache.kafka.connect.json.JsonConverter"))
                .singleElement()
                .asString()
                .contains("the payload column 'payload' is bytea");
        assertThat(problemsAfter("transforms", "unwrap"))
                .containsExactly("no outbox event router: 'transforms' names no transform whose type is "
                        + DebeziumOutboxConfig.EVENT_ROUTER);
    }

    @Test
    void verify_throws_with_every_problem() {
        Map<String, String> config = new LinkedHashMap<>(readmeExample().kafkaConnectProperties());
        config.put("transforms.outbox.table.field.event.key", "aggregateid");
        assertThatThrownBy(() -> DebeziumOutboxConfig.verify(TABLE, config))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("txoutbox: the connector configuration does not fit the outbox table 'outbox':")
                .hasMessageContaining("'aggregate_id'");
    }

    @Test
    void names_that_are_not_identifiers_are_refused_at_build() {
        assertThatThrownBy(() ->
                        DebeziumOutboxConfig.builder(TABLE).slotName("my-slot").build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("DebeziumOutboxConfig.slotName 'my-slot' is not a valid identifier");
        assertThatThrownBy(() ->
                        DebeziumOutboxConfig.builder(TABLE).topic("events").build())
                .hasMessageContaining("must contain ${routedByValue}");
    }

    @Test
    void the_module_readme_shows_exactly_what_the_generator_makes() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        DebeziumOutboxConfig example = readmeExample();
        assertThat(readme)
                .contains(example.kafkaConnectJson("shop-outbox"))
                .contains(DebeziumOutboxConfig.builder(TABLE)
                        .database("db.example.com", 5432, "shop", "debezium", "${PG_PASSWORD}")
                        .topicPrefix("shop")
                        .build()
                        .debeziumServerProperties())
                .contains(example.createPublicationSql() + ";\n" + example.createSlotSql() + ";\n");
    }

    private static java.util.List<String> problemsAfter(String key, String value) {
        Map<String, String> config = new LinkedHashMap<>(readmeExample().kafkaConnectProperties());
        if (value == null) {
            config.remove(key);
        } else {
            config.put(key, value);
        }
        return DebeziumOutboxConfig.check(TABLE, config);
    }
}
