package io.txoutbox.server.cli;

import static io.txoutbox.server.TestSupport.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.server.TestReceiver;
import io.txoutbox.server.TestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGTERM on a running server: the batch in flight finishes, leases are returned, the exit code is 0. */
class GracefulShutdownTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_stop");

    @TempDir
    Path dir;

    private Process process;
    private TestReceiver receiver;

    @AfterEach
    void cleanUp() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
        TestSupport.cleanUp(TABLE, receiver);
    }

    @Test
    void sigterm_finishes_the_batch_in_flight_returns_leases_and_exits_0() throws Exception {
        receiver = new TestReceiver();
        receiver.delay = Duration.ofSeconds(2); // a slow receiver keeps the batch in flight
        String relay = "      batch-size: 5\n      publish-timeout: 20s\n      lease-duration: 60s\n";
        Path config = TestSupport.write(dir, "stop.yaml", TestSupport.yaml(TABLE, receiver.url(), true, relay));
        Outbox outbox = Outbox.builder(TestSupport.postgres())
                .table(TABLE)
                .createSchemaIfMissing(true)
                .build();
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            events.add(OutboxEvent.builder("order.placed")
                    .aggregate("order", "o-" + i)
                    .jsonPayload("{}")
                    .build());
        }
        outbox.inTransaction(c -> outbox.appendAll(c, events));

        Path output = dir.resolve("server.log");
        process = TestSupport.childJvm(output, "run", "--config", config.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> !receiver.started.isEmpty());
        assertThat(count("SELECT count(*) FROM " + TABLE + " WHERE lease_owner IS NOT NULL"))
                .as("a batch is in flight when the signal comes")
                .isPositive();
        List<String> inFlight = List.copyOf(receiver.started);

        process.destroy(); // SIGTERM
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(log).isZero();
        assertThat(log).contains("stopped cleanly");

        assertThat(count("SELECT count(*) FROM " + TABLE + " WHERE lease_owner IS NOT NULL"))
                .as("no lease is left behind")
                .isZero();
        for (String id : inFlight) {
            assertThat(receiver.accepted).as("the batch in flight was answered").containsKey(id);
            assertThat(count("SELECT count(*) FROM " + TABLE + " WHERE id = '" + id + "'"))
                    .as("and marked published")
                    .isZero();
        }
        assertThat(count("SELECT count(*) FROM " + TABLE))
                .as("the rest waits, pending")
                .isPositive();
        assertThat(count("SELECT count(*) FROM " + TABLE + " WHERE status <> 'pending'"))
                .isZero();
    }
}
