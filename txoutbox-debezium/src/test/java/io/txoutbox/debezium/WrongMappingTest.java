package io.txoutbox.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: a mapping that does not fit the table fails, naming the column, both in the check and in
 * the real router; the configuration generated from the same table passes both.
 */
class WrongMappingTest extends EngineTest {
    /** The aggregate id lives in a column named {@code order_key}. */
    private static final OutboxTable.Columns RENAMED =
            new OutboxTable.Columns("id", "aggregate_type", "order_key", "event_type", "payload");

    @Test
    void a_configuration_guessed_from_default_names_is_refused_naming_the_column_and_stops_the_real_router()
            throws Exception {
        String table = newTable();
        Outbox outbox = outbox(table, RENAMED, true);
        // What a user gets by assuming txoutbox's default column names for this table.
        DebeziumOutboxConfig guessed = connect(OutboxTable.of(table), b -> b);

        List<String> problems = DebeziumOutboxConfig.check(tableOf(outbox), guessed.kafkaConnectProperties());
        assertThat(problems)
                .hasSize(2)
                .anySatisfy(p -> assertThat(p)
                        .contains("transforms.outbox.table.field.event.key is 'aggregate_id'")
                        .contains("the outbox's aggregate-id column is 'order_key'"))
                .anySatisfy(p -> assertThat(p)
                        .contains("table.fields.additional.placement places column 'aggregate_id', which the outbox"
                                + " table does not have"));
        assertThatThrownBy(() -> DebeziumOutboxConfig.verify(tableOf(outbox), guessed.kafkaConnectProperties()))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("'order_key'");

        Capture capture = capture(guessed);
        outbox.inTransaction(c -> outbox.append(c, event()));
        await().atMost(Duration.ofSeconds(60)).until(() -> capture.failure() != null);
        assertThat(capture.failure())
                .as("the router meets a row without the column it was told to read")
                .contains("aggregate_id");
        assertThat(capture.messages()).isEmpty();
    }

    @Test
    void the_configuration_generated_from_the_same_table_passes_the_check_and_delivers() throws Exception {
        String table = newTable();
        Outbox outbox = outbox(table, RENAMED, true);
        DebeziumOutboxConfig generated = connect(outbox, b -> b);

        assertThat(DebeziumOutboxConfig.check(tableOf(outbox), generated.kafkaConnectProperties()))
                .isEmpty();
        Capture capture = capture(generated);
        OutboxEvent event = outbox.inTransaction(c -> outbox.append(c, event()));
        awaitArrival(capture, event.id());
        assertThat(capture.messages()).singleElement().satisfies(m -> {
            assertThat(m.key()).isEqualTo("o-7");
            assertThat(m.topic()).isEqualTo("order");
            assertThat(m.value()).isEqualTo(event.payload());
        });
    }

    private static OutboxEvent event() {
        return OutboxEvent.builder("order.placed")
                .aggregate("order", "o-7")
                .jsonPayload("{\"total\":12}")
                .build();
    }

    private static OutboxTable tableOf(Outbox outbox) {
        return outbox.outboxTable();
    }
}
