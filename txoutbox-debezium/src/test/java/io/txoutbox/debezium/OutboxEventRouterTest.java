package io.txoutbox.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxTable;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real Debezium engine (PostgreSQL connector, pgoutput, the outbox event router) reads a table that
 * txoutbox producers write, configured with exactly what {@link DebeziumOutboxConfig} generates: every
 * committed event arrives once, with its id, key, route, type, payload bytes and headers, in per-aggregate
 * order; nothing of a rolled-back transaction arrives.
 */
class OutboxEventRouterTest extends EngineTest {
    /** How the producers' outbox is built. */
    enum TableMode {
        /** The relay's table with Debezium's column names ({@code Columns.DEBEZIUM}); rows stay. */
        RELAY_TABLE_DEBEZIUM_COLUMNS(OutboxTable.Columns.DEBEZIUM, false),
        /** The relay's table with txoutbox's column names and the router's table.field.* settings. */
        RELAY_TABLE_TXOUTBOX_COLUMNS(OutboxTable.Columns.DEFAULT, false),
        /** Change-data-capture mode: append deletes each row in its transaction; the table stays empty. */
        CHANGE_DATA_CAPTURE(OutboxTable.Columns.DEFAULT, true);

        final OutboxTable.Columns columns;
        final boolean cdc;

        TableMode(OutboxTable.Columns columns, boolean cdc) {
            this.columns = columns;
            this.cdc = cdc;
        }
    }

    @ParameterizedTest
    @EnumSource(TableMode.class)
    void every_committed_event_arrives_once_with_its_id_key_route_type_payload_and_headers(TableMode mode)
            throws Exception {
        String table = newTable();
        Outbox outbox = outbox(table, mode.columns, mode.cdc);
        DebeziumOutboxConfig config = connect(outbox, UnaryOperator.identity());
        Capture capture = capture(config);

        Producers producers = new Producers();
        producers.run(LogicalPostgres.dataSource(), 4, 175, tx -> outbox, null);
        OutboxEvent sentinel = outbox.inTransaction(c -> outbox.append(c, Producers.sentinel()));

        List<OutboxEvent> committed = producers.committed();
        awaitArrival(capture, sentinel.id());
        List<Capture.Message> messages = capture.messages();
        assertThat(committed).hasSizeGreaterThan(800);
        assertThat(messages.stream().map(Capture.Message::eventId))
                .as("every committed event once, nothing of the rolled-back ones, then the sentinel")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(withSentinel(committed, sentinel))
                .doesNotContainAnyElementsOf(
                        producers.rolledBack().stream().map(OutboxEvent::id).toList());
        List<OutboxEvent> expected = new ArrayList<>(committed);
        expected.add(sentinel);
        Delivered.assertCarried(expected, messages, OutboxEvent::aggregateType, UnaryOperator.identity());
        assertThat(LogicalPostgres.queryLong("SELECT count(*) FROM " + table))
                .as(mode.cdc ? "CDC mode leaves the table empty" : "no relay runs: the rows stay")
                .isEqualTo(mode.cdc ? 0 : committed.size() + 1);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void updates_deletes_and_tombstones_in_the_stream_reach_no_consumer(boolean generatedSkips) throws Exception {
        fullPublication = true;
        String table = newTable();
        Outbox relayMode = outbox(table, OutboxTable.Columns.DEFAULT, false);
        Outbox cdc = outbox(table, OutboxTable.Columns.DEFAULT, true);
        DebeziumOutboxConfig config = connect(relayMode, UnaryOperator.identity());
        Map<String, String> props = new LinkedHashMap<>(config.kafkaConnectProperties());
        if (!generatedSkips) {
            // The connector's defaults: deletes and their tombstones reach the router, which must drop them.
            props.remove("skipped.operations");
            props.remove("tombstones.on.delete");
        }
        Capture capture = Capture.kafkaConnect(props, table);
        opened.add(capture);
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay =
                relayMode.relay(broker).pollInterval(Duration.ofMillis(100)).build()) {
            relay.start();
            Producers producers = new Producers();
            // Relay-mode rows are leased (UPDATE) and deleted by the relay; CDC-mode rows are deleted at append.
            producers.run(LogicalPostgres.dataSource(), 2, 60, tx -> tx % 2 == 0 ? relayMode : cdc, null);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> LogicalPostgres.queryLong("SELECT count(*) FROM " + table) == 0);
            OutboxEvent sentinel = cdc.inTransaction(c -> cdc.append(c, Producers.sentinel()));
            awaitArrival(capture, sentinel.id());
            List<OutboxEvent> expected = new ArrayList<>(producers.committed());
            expected.add(sentinel);
            assertThat(broker.publishedCount())
                    .as("the relay published its rows")
                    .isPositive();
            assertThat(capture.messages())
                    .as("one message per committed INSERT, no delete, update or tombstone")
                    .hasSize(expected.size())
                    .allSatisfy(m -> assertThat(m.value()).isNotNull());
            Delivered.assertCarried(expected, capture.messages(), OutboxEvent::aggregateType, UnaryOperator.identity());
        }
    }

    @Test
    void a_configuration_that_routes_by_destination_sends_each_event_to_its_destination() throws Exception {
        String table = newTable();
        Outbox outbox = outbox(table, OutboxTable.Columns.DEFAULT, true);
        DebeziumOutboxConfig config = connect(outbox, b -> b.routeByDestination(true));
        Capture capture = capture(config);

        Producers producers = new Producers();
        producers.run(LogicalPostgres.dataSource(), 2, 30, tx -> outbox, "billing-events");
        OutboxEvent sentinel = outbox.inTransaction(c -> outbox.append(
                c,
                OutboxEvent.builder("test.sentinel")
                        .aggregate("sentinel", "end")
                        .jsonPayload("{}")
                        .destination("billing-events")
                        .build()));
        awaitArrival(capture, sentinel.id());

        List<OutboxEvent> expected = new ArrayList<>(producers.committed());
        expected.add(sentinel);
        assertThat(capture.messages()).hasSize(expected.size());
        Delivered.assertCarried(expected, capture.messages(), OutboxEvent::destination, UnaryOperator.identity());
    }

    @Test
    void debezium_server_properties_run_the_engine_as_generated() throws Exception {
        String table = newTable();
        Outbox outbox = outbox(table, OutboxTable.Columns.DEBEZIUM, true);
        DebeziumOutboxConfig config = connect(outbox, UnaryOperator.identity());
        Capture capture = Capture.debeziumServer(config.debeziumServerProperties(), table);
        opened.add(capture);

        Producers producers = new Producers();
        producers.run(LogicalPostgres.dataSource(), 2, 40, tx -> outbox, null);
        OutboxEvent sentinel = outbox.inTransaction(c -> outbox.append(c, Producers.sentinel()));
        awaitArrival(capture, sentinel.id());

        List<OutboxEvent> expected = new ArrayList<>(producers.committed());
        expected.add(sentinel);
        assertThat(capture.messages()).hasSize(expected.size());
        Delivered.assertCarried(expected, capture.messages(), OutboxEvent::aggregateType, UnaryOperator.identity());
    }
}
