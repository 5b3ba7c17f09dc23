package io.txoutbox.debezium;

import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;

/**
 * A test that runs the Debezium engine on the embedded PostgreSQL: tables, publications, slots and engines
 * of its own, closed and dropped after each test.
 */
abstract class EngineTest {
    final List<AutoCloseable> opened = new ArrayList<>();
    final List<Runnable> cleanup = new ArrayList<>();
    /** Publish every operation (PostgreSQL's default), as an auto-created publication does. */
    boolean fullPublication;

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        cleanup.forEach(Runnable::run);
    }

    static void awaitArrival(Capture capture, UUID id) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (capture.failure() != null) {
                        throw new AssertionError("the Debezium engine stopped: " + capture.failure());
                    }
                    return capture.messages().stream().anyMatch(m -> m.eventId().equals(id));
                });
    }

    static List<UUID> withSentinel(List<OutboxEvent> committed, OutboxEvent sentinel) {
        List<UUID> ids = new ArrayList<>(committed.stream().map(OutboxEvent::id).toList());
        ids.add(sentinel.id());
        return ids;
    }

    String newTable() {
        String table =
                "dbz_" + getClass().getSimpleName().toLowerCase(Locale.ROOT).substring(0, 5) + "_"
                        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        cleanup.add(() -> LogicalPostgres.execute(
                "DROP TABLE IF EXISTS " + table + " CASCADE",
                "DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE"));
        return table;
    }

    static Outbox outbox(String table, OutboxTable.Columns columns, boolean cdc) {
        DataSource ds = LogicalPostgres.dataSource();
        return Outbox.builder(ds)
                .table(table)
                .columns(columns)
                .createSchemaIfMissing(true)
                .changeDataCapture(cdc)
                .build();
    }

    /**
     * The documented first steps: the publication, then the slot, from the generated configuration.
     *
     * @return the configuration, whose slot and publication are dropped after the test
     */
    DebeziumOutboxConfig connect(Outbox outbox, UnaryOperator<DebeziumOutboxConfig.Builder> customize) {
        return connect(outbox.outboxTable(), customize);
    }

    /** As {@link #connect(Outbox, UnaryOperator)}, for a configuration generated from a table mapping. */
    DebeziumOutboxConfig connect(OutboxTable table, UnaryOperator<DebeziumOutboxConfig.Builder> customize) {
        DebeziumOutboxConfig config = customize
                .apply(DebeziumOutboxConfig.builder(table)
                        .database("localhost", LogicalPostgres.port(), "postgres", "postgres", "unused")
                        .topicPrefix(table.name()))
                .build();
        LogicalPostgres.execute(
                fullPublication
                        ? config.createPublicationSql().replace(" WITH (publish = 'insert')", "")
                        : config.createPublicationSql());
        LogicalPostgres.queryString(config.createSlotSql());
        cleanup.add(0, () -> dropSlotAndPublication(config));
        return config;
    }

    /** The engine has stopped, but its walsender may linger a moment holding the slot. */
    static void dropSlotAndPublication(DebeziumOutboxConfig config) {
        String slot = config.connectorProperties().get("slot.name");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> LogicalPostgres.queryLong(
                                "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '" + slot + "'")
                        == 0);
        config.dropSql().forEach(LogicalPostgres::execute);
    }

    Capture capture(DebeziumOutboxConfig config) {
        Capture capture = Capture.kafkaConnect(
                config.kafkaConnectProperties(), config.table().name());
        opened.add(capture);
        return capture;
    }
}
