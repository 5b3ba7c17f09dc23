package io.txoutbox.server.cli;

import static io.txoutbox.server.TestSupport.cli;
import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.dropTable;
import static io.txoutbox.server.TestSupport.sql;
import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.server.TestReceiver;
import io.txoutbox.server.TestSupport;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --check} is a dry run: it connects, checks the table, reaches each transport and reports
 * per source and route, and changes nothing: no row is published, claimed or touched, the admin port is
 * never bound, no table is created.
 */
class DryRunCheckTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_check");
    private static final String MISSING = TestSupport.uniqueTable("srv_check_missing");

    @TempDir
    static Path dir;

    static TestReceiver receiver;
    static int adminPort;

    @BeforeAll
    static void table() throws Exception {
        receiver = new TestReceiver();
        adminPort = TestSupport.freePort();
        Path config = TestSupport.write(dir, "schema.yaml", yaml(TABLE, false, ""));
        TestSupport.applySchema(config);
        sql("INSERT INTO " + TABLE + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES"
                + " (gen_random_uuid(), 'order', 'o-1', 'order.placed', convert_to('{}', 'UTF8')),"
                + " (gen_random_uuid(), 'order', 'o-2', 'order.placed', convert_to('{}', 'UTF8')),"
                + " (gen_random_uuid(), 'customer', 'c-1', 'customer.registered', convert_to('{}', 'UTF8'))");
    }

    @AfterAll
    static void drop() {
        if (receiver != null) {
            receiver.close();
        }
        dropTable(TABLE);
        dropTable(MISSING);
    }

    /** Order events to the webhook receiver, everything else to the log, plus one extra route. */
    private static String yaml(String table, boolean createSchema, String extraRoute) {
        return """
                admin:
                  host: 127.0.0.1
                  port: %d
                  token: %s
                sources:
                  - name: orders
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: %s
                    routes:
                %s
                %s
                      - types: ["*"]
                        transport: log
                """.formatted(
                        adminPort,
                        TestSupport.TOKEN,
                        TestSupport.PG_URL,
                        TestSupport.PG_USER,
                        table,
                        createSchema,
                        TestSupport.webhookRoute("[\"order.*\"]", receiver.url()),
                        extraRoute);
    }

    private static TestSupport.CliResult check(String yaml) throws Exception {
        return cli(
                Map.of(),
                "run",
                "--check",
                "--config",
                TestSupport.write(dir, "check.yaml", yaml).toString());
    }

    private static void assertNothingChanged() throws Exception {
        assertThat(count("SELECT count(*) FROM " + TABLE)).isEqualTo(3);
        assertThat(count("SELECT count(*) FROM " + TABLE
                        + " WHERE status = 'pending' AND attempts = 0 AND lease_owner IS NULL"
                        + " AND lease_expires_at IS NULL AND last_error IS NULL"))
                .isEqualTo(3);
        assertThat(receiver.started).isEmpty();
        // The admin port was never bound: it is still free.
        try (ServerSocket s = new ServerSocket(adminPort, 1, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).isEqualTo(adminPort);
        }
    }

    @Test
    void check_reports_each_source_and_route_and_changes_nothing() throws Exception {
        TestSupport.CliResult r = check(yaml(TABLE, false, ""));

        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("check: admin API and dashboard on 127.0.0.1:" + adminPort + " (not bound by a check)")
                .contains("check: sources[0] 'orders': OK: database")
                .contains("table " + TABLE + " has the expected shape")
                .contains("check: sources[0].routes[0].transport.webhook (route 'webhook', types [order.*]): OK:"
                        + " webhook endpoint(s) accept TCP connections")
                .contains("check: sources[0].routes[1].transport.log (route 'log', types [*]): OK")
                .contains("check OK: 1 source(s), 2 route(s); nothing was changed");
        assertNothingChanged();
    }

    @Test
    void check_with_an_unreachable_broker_exits_2_naming_that_route_and_still_changes_nothing() throws Exception {
        int closed = TestSupport.freePort();
        String redisRoute = """
                      - types: ["invoice.*"]
                        transport:
                          redis:
                            uri: redis://:not-a-real-secret-xyz@127.0.0.1:%d
                """.formatted(closed);
        TestSupport.CliResult r = check(yaml(TABLE, false, redisRoute));

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.out())
                .contains("check: sources[0].routes[1].transport.redis (route 'redis', types [invoice.*]): FAILED:")
                .contains("check: sources[0].routes[0].transport.webhook (route 'webhook', types [order.*]): OK")
                .contains("check failed: 1 problem(s); nothing was changed");
        assertThat(r.err())
                .contains("configuration error: sources[0].routes[1].transport.redis: cannot reach redis")
                .contains("127.0.0.1:" + closed);
        assertThat(r.out() + r.err()).doesNotContain("not-a-real-secret-xyz");
        assertNothingChanged();
    }

    @Test
    void check_with_create_schema_says_what_it_would_create_and_creates_nothing() throws Exception {
        TestSupport.CliResult r = check(yaml(MISSING, true, ""));

        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("table " + MISSING + " does not exist: a start with create-schema: true would create it")
                .contains("the check created nothing");
        assertThat(count("SELECT count(*) FROM information_schema.tables WHERE table_name = '" + MISSING + "'"))
                .isZero();
        assertNothingChanged();
    }
}
