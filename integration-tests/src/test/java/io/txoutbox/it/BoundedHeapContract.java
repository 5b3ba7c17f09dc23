package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, item 3: a backlog larger than the relay's heap. Thirty rows of 10 MiB (300 MiB) and small
 * events behind them, relayed by a relay with the default settings in a JVM with a 256 MiB heap: the
 * byte budget keeps every claim small, so everything is published, the small events too.
 */
abstract class BoundedHeapContract extends DatabaseTest {
    private static final int BIG = 30;
    private static final int BIG_BYTES = 10 * 1024 * 1024;
    private static final int SMALL = 20;

    @Test
    void a_backlog_larger_than_the_heap_is_published_whole_by_a_relay_with_a_256_mib_heap() throws Exception {
        Outbox outbox = outboxBuilder().maxPayloadBytes(16 * 1024 * 1024).build();
        String broker = newTable();
        execute("CREATE TABLE " + broker + " (event_id varchar(36) NOT NULL, bytes integer NOT NULL)");
        byte[] big = new byte[BIG_BYTES];
        Arrays.fill(big, (byte) 'x');
        for (int i = 0; i < BIG; i++) {
            appendCommitted(
                    outbox,
                    OutboxEvent.builder("blob.stored")
                            .aggregate("blob", "b-" + i)
                            .payload(big, "application/octet-stream")
                            .build());
        }
        List<OutboxEvent> small = new ArrayList<>();
        for (int i = 0; i < SMALL; i++) {
            small.addAll(appendCommitted(outbox, event("order.placed", "o-" + i)));
        }

        Process relay = start(database(), outbox.table(), broker);
        try {
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(500))
                    .failFast("the relay process died", () -> !relay.isAlive())
                    .until(() -> count("SELECT count(*) FROM " + broker) == BIG + SMALL);
            assertThat(count("SELECT count(*) FROM " + broker + " WHERE bytes = ?", BIG_BYTES))
                    .isEqualTo(BIG);
            for (OutboxEvent e : small) {
                assertThat(count("SELECT count(*) FROM " + broker + " WHERE event_id = ?", e.id().toString()))
                        .as("small event %s published once", e.id())
                        .isEqualTo(1);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> rows(outbox) == 0);
        } finally {
            relay.destroy();
            relay.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Process start(TestDatabase database, String table, String broker) throws Exception {
        return ChildJvm.start(List.of("-Xmx256m"), BoundedHeapRelayMain.class, database.name(), table, broker);
    }
}
