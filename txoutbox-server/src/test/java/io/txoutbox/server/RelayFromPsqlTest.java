package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.psql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.config.ConfigLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table is the contract: a row that the real {@code psql} inserts, with none of txoutbox's code
 * involved, is relayed by the server.
 */
class RelayFromPsqlTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_psql");

    @TempDir
    static Path dir;

    static TestReceiver receiver;
    static RelayServer server;

    @BeforeAll
    static void start() throws IOException {
        receiver = new TestReceiver();
        Path config = TestSupport.write(dir, "psql.yaml", TestSupport.yaml(TABLE, receiver.url(), false, ""));
        // The table is created the way an operator would: txoutbox schema --apply.
        TestSupport.CliResult applied = TestSupport.applySchema(config);
        assertThat(applied.out()).contains("table " + TABLE + " is ready");
        server = RelayServer.start(ConfigLoader.load(config, System.getenv()::get));
    }

    @AfterAll
    static void stop() {
        TestSupport.cleanUp(TABLE, receiver, server);
    }

    @Test
    void row_inserted_with_psql_is_relayed_to_the_webhook_with_a_valid_signature() throws Exception {
        UUID id = UUID.randomUUID();
        String out = psql("INSERT INTO " + TABLE + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " VALUES ('" + id + "', 'order', 'o-7', 'order.placed', convert_to('{\"total\":12}', 'UTF8'))");
        assertThat(out).contains("INSERT 0 1");

        await().atMost(Duration.ofSeconds(20)).until(() -> receiver.accepted.containsKey(id.toString()));
        assertThat(new String(receiver.accepted.get(id.toString()), StandardCharsets.UTF_8))
                .isEqualTo("{\"total\":12}");
        assertThat(receiver.badSignatures).hasValue(0);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM " + TABLE + " WHERE id = '" + id + "'") == 0);
    }

    @Test
    void row_of_a_type_routed_to_the_log_sink_is_published_and_never_reaches_the_webhook() throws Exception {
        UUID id = UUID.randomUUID();
        psql("INSERT INTO " + TABLE + " (id, aggregate_type, aggregate_id, event_type, payload)" + " VALUES ('" + id
                + "', 'customer', 'c-1', 'customer.registered', convert_to('{}', 'UTF8'))");

        // The activity counters are updated just after the mark commits: wait for them, not the row.
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            var byType = server.source("orders").activity().byType();
            return byType.containsKey("customer.registered")
                    && byType.get("customer.registered").published() == 1;
        });
        assertThat(count("SELECT count(*) FROM " + TABLE + " WHERE id = '" + id + "'"))
                .isZero();
        assertThat(receiver.started).doesNotContain(id.toString());
    }
}
