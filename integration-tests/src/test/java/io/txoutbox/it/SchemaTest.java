package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table as a contract: DDL, the start-up check, column mapping, and rows written without Java. */
class SchemaTest extends DatabaseTest {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    @Test
    void a_missing_table_fails_at_build_naming_the_table_and_the_fixes() {
        String table = newTable();
        assertThatThrownBy(() -> Outbox.builder(dataSource()).table(table).build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("the outbox table '" + table + "' does not exist")
                .hasMessageContaining("createSchemaIfMissing(true)")
                .hasMessageContaining("db/migration/txoutbox/postgresql/V1__txoutbox_outbox.sql");
    }

    @Test
    void a_table_of_the_wrong_shape_fails_at_build_listing_what_is_wrong() {
        String table = newTable();
        execute("CREATE TABLE " + table + " (id uuid PRIMARY KEY, aggregate_type text, aggregate_id text,"
                + " event_type text, payload text)");
        assertThatThrownBy(() -> Outbox.builder(dataSource()).table(table).build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("does not have the expected shape")
                .hasMessageContaining("column 'payload' is text; expected [bytea]")
                .hasMessageContaining("column 'lease_owner' is missing");
    }

    @Test
    void create_schema_is_idempotent_and_the_migration_files_are_the_rendered_templates() throws Exception {
        Outbox outbox = newOutbox();
        outbox.createSchema();
        outbox.createSchema();
        OutboxTable defaults = OutboxTable.of(OutboxTable.DEFAULT_NAME);
        for (Dialect dialect : Dialect.supported()) {
            String folder = "/db/migration/txoutbox/" + dialect.name() + "/";
            String v1 = resource(folder + "V1__txoutbox_outbox.sql");
            if (dialect == Dialect.POSTGRESQL) {
                // V1 stays as shipped (a migration that ran must keep its checksum); V3 drops its trigger.
                String v3 = resource(folder + "V3__txoutbox_outbox_no_commit_notify.sql");
                String v4 = resource(folder + "V4__txoutbox_outbox_autovacuum.sql");
                String v1WithoutTrigger =
                        v1.substring(0, v1.indexOf("\n-- Wake relays once per inserting transaction"));
                assertThat(dialect.outboxDdl(defaults)).isEqualTo(v1WithoutTrigger + "\n" + v3 + "\n" + v4);
                assertThat(resource("/db/migration/txoutbox/postgresql-foreign-writers/"
                                + "R__txoutbox_outbox_foreign_writer_wakeups.sql"))
                        .isEqualTo(dialect.foreignWriterWakeupDdl(defaults));
            } else {
                assertThat(v1).as(dialect.name()).isEqualTo(dialect.outboxDdl(defaults));
            }
            assertThat(resource(folder + "V2__txoutbox_inbox.sql"))
                    .as(dialect.name())
                    .isEqualTo(dialect.inboxDdl("inbox"));
        }
    }

    @Test
    void the_migrations_create_the_same_table_as_create_schema() throws Exception {
        String migrated = newTable();
        String created = newTable();
        execute("CREATE SCHEMA " + migrated);
        execute("CREATE SCHEMA " + created);
        try {
            migrate(migrated, "/db/migration/txoutbox/postgresql/V1__txoutbox_outbox.sql");
            assertThat(triggers(migrated)).as("V1 as shipped in 0.1").containsExactly("outbox_notify");
            migrate(migrated, "/db/migration/txoutbox/postgresql/V3__txoutbox_outbox_no_commit_notify.sql");
            migrate(migrated, "/db/migration/txoutbox/postgresql/V4__txoutbox_outbox_autovacuum.sql");
            Outbox.builder(dataSource())
                    .table(created + ".outbox")
                    .createSchemaIfMissing(true)
                    .build()
                    .close();
            assertThat(triggers(migrated)).isEmpty();
            assertThat(triggers(created)).isEmpty();
            assertThat(indexes(migrated)).isEqualTo(indexes(created)).isNotEmpty();
            assertThat(columns(migrated)).isEqualTo(columns(created)).isNotEmpty();
            assertThat(reloptions(migrated))
                    .isEqualTo(reloptions(created))
                    .contains("fillfactor=50", "autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=5000");

            migrate(
                    migrated,
                    "/db/migration/txoutbox/postgresql-foreign-writers/R__txoutbox_outbox_foreign_writer_wakeups.sql");
            Outbox.builder(dataSource())
                    .table(created + ".outbox")
                    .createSchemaIfMissing(true)
                    .foreignWriterWakeups(true)
                    .build()
                    .close();
            assertThat(triggers(migrated)).containsExactly("outbox_wake");
            assertThat(triggers(created)).containsExactly("outbox_wake");
        } finally {
            execute("DROP SCHEMA " + migrated + " CASCADE");
            execute("DROP SCHEMA " + created + " CASCADE");
        }
    }

    /** @return the storage parameters of the schema's outbox table */
    private String reloptions(String schema) {
        try (Connection c = dataSource().getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement("SELECT array_to_string(c.reloptions, ',')"
                        + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = ? AND c.relname = 'outbox'")) {
            ps.setString(1, schema);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void migrate(String schema, String script) throws Exception {
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute("SET search_path TO " + schema);
            for (String sql : resource(script).split(";\\s*\\n\\s*\\n")) {
                st.execute(sql);
            }
            st.execute("RESET search_path");
        }
    }

    private List<String> triggers(String schema) {
        return strings("SELECT t.tgname FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace n"
                + " ON n.oid = r.relnamespace WHERE n.nspname = '" + schema + "' AND NOT t.tgisinternal ORDER BY 1");
    }

    private List<String> indexes(String schema) {
        return strings("SELECT replace(indexdef, '" + schema + ".', '') FROM pg_indexes WHERE schemaname = '" + schema
                + "' ORDER BY indexname");
    }

    private List<String> columns(String schema) {
        return strings("SELECT column_name || ' ' || udt_name || ' ' || is_nullable || ' ' || coalesce(column_default,"
                + " '') FROM information_schema.columns WHERE table_schema = '" + schema
                + "' ORDER BY ordinal_position");
    }

    private List<String> strings(String sql) {
        try (Connection c = dataSource().getConnection();
                Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery(sql)) {
            List<String> out = new java.util.ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void the_migration_file_creates_a_table_the_outbox_accepts() throws Exception {
        String schema = newTable();
        execute("CREATE SCHEMA " + schema);
        migrate(schema, "/db/migration/txoutbox/postgresql/V1__txoutbox_outbox.sql");
        migrate(schema, "/db/migration/txoutbox/postgresql/V3__txoutbox_outbox_no_commit_notify.sql");
        Outbox outbox = Outbox.builder(dataSource()).table(schema + ".outbox").build();
        RecordingPublisher broker = new RecordingPublisher();
        appendCommitted(outbox, event("order.placed", "1"));
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.publishedCount()).isEqualTo(1);
        execute("DROP SCHEMA " + schema + " CASCADE");
    }

    @Test
    void debezium_column_names_work_end_to_end() {
        Outbox outbox = outboxBuilder().columns(OutboxTable.Columns.DEBEZIUM).build();
        assertThat(count(
                        "SELECT count(*) FROM information_schema.columns WHERE table_name = ? AND column_name IN"
                                + " ('id', 'aggregatetype', 'aggregateid', 'type', 'payload')",
                        outbox.table()))
                .isEqualTo(5);
        RecordingPublisher broker = new RecordingPublisher();
        OutboxEvent placed =
                appendCommitted(outbox, event("order.placed", "o-9")).get(0);
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).singleElement().satisfies(e -> {
            assertThat(e.id()).isEqualTo(placed.id());
            assertThat(e.aggregateId()).isEqualTo("o-9");
            assertThat(e.eventType()).isEqualTo("order.placed");
        });
    }

    @Test
    void a_row_inserted_with_plain_sql_by_another_program_is_relayed() {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        execute("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " VALUES (gen_random_uuid(), 'order', 'o-7', 'order.placed', convert_to('{\"total\":12}', 'UTF8'),"
                + " '{\"correlation-id\":\"c-1\",\"retries\":3}')");
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(broker.published()).singleElement().satisfies(e -> {
            assertThat(e.payloadAsString()).isEqualTo("{\"total\":12}");
            assertThat(e.correlationId()).isEqualTo("c-1");
            assertThat(e.header("retries")).as("non-string values become text").isEqualTo("3");
            assertThat(e.contentType()).isEqualTo("application/json");
            assertThat(e.eventVersion()).isEqualTo(1);
        });
    }

    @Test
    void an_unreadable_row_written_by_another_program_goes_dead_with_the_reason_and_does_not_block() {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        execute("INSERT INTO " + outbox.table() + " (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " VALUES (gen_random_uuid(), 'order', 'o-1', 'order.placed', '\\x00', '{\"nested\":{\"a\":1}}')");
        appendCommitted(outbox, event("order.placed", "o-2"));
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(2);
            assertThat(relay.runOnce()).isZero();
        }
        assertThat(broker.published()).singleElement().satisfies(e -> assertThat(e.aggregateId())
                .isEqualTo("o-2"));
        io.txoutbox.test.OutboxAssert.assertThatOutbox(outbox)
                .hasDead(1)
                .hasDeadEventWithReasonContaining("unreadable row: headers 'nested' is a nested START_OBJECT");
    }

    @Test
    void an_unsupported_database_is_refused_naming_the_supported_ones() {
        assertThatThrownBy(() -> Dialect.named("oracle"))
                .isInstanceOf(OutboxException.class)
                .hasMessage(
                        "txoutbox.dialect 'oracle' is unknown; supported: [postgresql, mariadb, h2] (mysql is an alias of mariadb)");
    }

    @Test
    void tables_may_live_in_another_schema() {
        String schema = newTable();
        execute("CREATE SCHEMA " + schema);
        Outbox outbox = Outbox.builder(dataSource())
                .table(schema + ".events")
                .createSchemaIfMissing(true)
                .build();
        appendCommitted(outbox, event("order.placed", "1"));
        assertThat(outbox.admin().stats().pending()).isEqualTo(1);
        assertThat(List.of(outbox.table())).containsExactly(schema + ".events");
        execute("DROP SCHEMA " + schema + " CASCADE");
    }

    private static String resource(String path) throws Exception {
        try (InputStream in = SchemaTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
