package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.server.cli.RelayServer;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A source with {@code foreign-writer-wakeups: true}: rows that the real {@code psql} inserts wake the
 * server's idle relay through the table's trigger. The relay polls every ten minutes, with its adaptive
 * poll off, so only the wake-up can publish within the test's bound.
 */
class ForeignWriterWakeupsTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_wake");

    static TestReceiver receiver;
    static RelayServer server;

    @BeforeAll
    static void start() throws Exception {
        receiver = new TestReceiver();
        String yaml = TestSupport.yaml(TABLE, receiver.url(), true, "")
                .replace("    create-schema: true\n", "    create-schema: true\n    foreign-writer-wakeups: true\n")
                .replace("      poll-interval: 500ms\n", "      poll-interval: 10m\n      min-poll-interval: 10m\n");
        assertThat(yaml).contains("foreign-writer-wakeups: true", "min-poll-interval: 10m");
        server = TestSupport.start(yaml);
    }

    @AfterAll
    static void stop() {
        TestSupport.cleanUp(TABLE, receiver, server);
        TestSupport.sql("DROP FUNCTION IF EXISTS " + TABLE + "_wake() CASCADE");
    }

    @Test
    void the_schema_has_the_trigger_and_a_row_inserted_with_psql_wakes_the_idle_relay() throws Exception {
        assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = '" + TABLE + "'::regclass AND tgname = '"
                        + TABLE + "_wake'"))
                .isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            UUID id = UUID.randomUUID();
            TestSupport.psql("INSERT INTO " + TABLE + " (id, aggregate_type, aggregate_id, event_type, payload)"
                    + " VALUES ('" + id + "', 'order', 'o-" + i + "', 'order.placed', convert_to('{}', 'UTF8'))");
            await().atMost(Duration.ofSeconds(20)).until(() -> receiver.accepted.containsKey(id.toString()));
        }
    }
}
