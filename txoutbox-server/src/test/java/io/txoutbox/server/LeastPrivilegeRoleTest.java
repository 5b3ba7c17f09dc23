package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operations kit's least-privilege role ({@code ops/postgresql/relay-role.sql}, run with the real psql
 * as the table's owner would run it) is enough for the relay server and no more: the server, running as
 * that role and nothing else, claims, publishes, retries, kills, revives, deletes and purges events and
 * answers its statistics; the role cannot insert a row or create a table.
 */
class LeastPrivilegeRoleTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_ops_role");
    private static final String ROLE = "txoutbox_relay_" + TestSupport.randomHex();
    private static final String PASSWORD = "relay-" + TestSupport.randomHex();

    static OpsFixture relay;

    @BeforeAll
    static void start() throws Exception {
        // The table exists before the relay, created by its owner (as migrations would).
        Outbox.builder(TestSupport.postgres())
                .table(TABLE)
                .createSchemaIfMissing(true)
                .build()
                .close();
        psqlFile(
                OpsFixture.KIT.resolve("postgresql/relay-role.sql").toString(),
                "role=" + ROLE,
                "password=" + PASSWORD,
                "schema=public",
                "table=" + TABLE);
        relay = OpsFixture.start(TABLE, ROLE, false);
    }

    @AfterAll
    static void stop() throws Exception {
        if (relay != null) {
            relay.close();
        } else {
            TestSupport.dropTable(TABLE);
        }
        TestSupport.sql("DROP OWNED BY " + ROLE);
        TestSupport.sql("DROP ROLE IF EXISTS " + ROLE);
    }

    @Test
    void the_relay_publishes_retries_and_kills_events_and_answers_its_statistics_as_the_role() {
        // OpsFixture.start waited for three events published (one after a retry) and one dead, read from
        // the stats of the server that runs as the role.
        assertThat(relay.stats().path("relayed").path("published").asLong()).isEqualTo(3);
        assertThat(relay.server.source("orders").config().user()).isEqualTo(ROLE);
        assertThat(TestSupport.http("GET", relay.base + "/metrics", null, null).body())
                .contains("txoutbox_events_pending_events{source=\"orders\",table=\"" + TABLE + "\"} 0.0");
    }

    @Test
    void the_operator_actions_work_as_the_role() {
        String base = relay.base + "/api/sources/orders";
        TestSupport.Response revived = http("POST", base + "/revive", TOKEN, "{\"all\": true}");
        assertThat(revived.status()).as(revived.body()).isEqualTo(200);
        assertThat(revived.json().path("revived").asInt()).isEqualTo(1);
        // The receiver still refuses it: it dies again, relayed and marked by the role.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> relay.stats().path("relayed").path("dead").asLong() == 2
                        && relay.stats().path("dead").asLong() == 1);
        TestSupport.Response deleted = http("DELETE", base + "/dead", TOKEN, "{\"all\": true}");
        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().path("deleted").asInt()).isEqualTo(1);
        TestSupport.Response purged = http("POST", base + "/purge", TOKEN, "{\"olderThan\": \"1s\"}");
        assertThat(purged.status()).as(purged.body()).isEqualTo(200);
        assertThat(http("GET", base + "/dead", TOKEN, null).json().path("events"))
                .isEmpty();
    }

    @Test
    void the_role_cannot_insert_rows_or_create_tables() throws SQLException {
        try (Connection c = DriverManager.getConnection(TestSupport.PG_URL, ROLE, PASSWORD);
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("INSERT INTO " + TABLE
                            + " (id, aggregate_type, aggregate_id, event_type, payload)"
                            + " VALUES (gen_random_uuid(), 'a', '1', 't', '\\x00')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            assertThatThrownBy(() -> s.execute("CREATE TABLE " + TABLE + "_mine (id int)"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
        }
    }

    /** Runs a SQL file with the real psql client, as the table's owner, with {@code -v} variables. */
    private static void psqlFile(String file, String... variables) throws Exception {
        List<String> command = new java.util.ArrayList<>(
                List.of("psql", "-h", "localhost", "-U", TestSupport.PG_USER, "-d", "test", "-X", "-q"));
        for (String v : variables) {
            command.add("-v");
            command.add(v);
        }
        command.addAll(List.of("-f", file));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }
}
