package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.ClaimFairness;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, item 3: a backlog larger than the relay's heap. Thirty rows of 10 MiB (300 MiB) and small
 * events behind them, relayed by a relay with the default settings in a JVM with a 256 MiB heap: the
 * byte budget keeps every claim small, so everything is published, the small events too.
 *
 * <p>Issue 24, class 5: a row written by another program that is too large to read in the relay's heap
 * at all fails alone, and goes dead once its attempt budget is spent, unread; the events beside it are
 * published meanwhile.
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

    @Test
    void a_row_too_large_to_read_in_the_heap_goes_dead_within_its_attempt_budget_and_the_rest_is_published()
            throws Exception {
        // A 32 MiB heap cannot hold the row at all. MariaDB sends no row beyond max_allowed_packet (16 MiB by
        // default): a smaller row there, still twice what the driver's packet and the payload need together.
        boolean mariadb = database() == TestDatabase.MARIADB;
        byte[] huge = new byte[(mariadb ? 15 : 48) * 1024 * 1024];
        Arrays.fill(huge, (byte) 'x');
        Outbox outbox = newOutbox();
        String broker = newTable();
        execute("CREATE TABLE " + broker + " (event_id varchar(36) NOT NULL, bytes integer NOT NULL)");
        List<OutboxEvent> before = appendCommitted(outbox, event("order.placed", "o-1"));
        UUID big = insertRow(outbox, row("big").put("payload", huge));
        huge = null;
        List<OutboxEvent> after = appendCommitted(outbox, event("order.placed", "o-2"), event("order.paid", "o-2"));

        Process relay = ChildJvm.start(
                relayJvm("-Xmx32m"),
                BoundedHeapRelayMain.class,
                database().name(),
                outbox.table(),
                broker,
                "3",
                "2000");
        try {
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(250))
                    .failFast("the relay process died", () -> !relay.isAlive())
                    .until(() -> !"pending".equals(column(outbox, big, "status")));
            assertThat(column(outbox, big, "status")).isEqualTo("dead");
            assertThat(column(outbox, big, "attempts")).isEqualTo("3");
            assertThat(column(outbox, big, "last_error"))
                    .startsWith("gave up after 3 attempts (the budget is 3) whose last did not end in a mark");
            await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM " + broker) == 3);
            for (OutboxEvent e : List.of(before.get(0), after.get(0), after.get(1))) {
                assertThat(count("SELECT count(*) FROM " + broker + " WHERE event_id = ?", e.id().toString()))
                        .as("event %s published once", e.id())
                        .isEqualTo(1);
            }
            assertThat(relay.isAlive()).isTrue();
        } finally {
            relay.destroy();
            relay.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Process start(TestDatabase database, String table, String broker) throws Exception {
        return ChildJvm.start(relayJvm("-Xmx256m"), BoundedHeapRelayMain.class, database.name(), table, broker);
    }

    /** @return the fairness the relay process claims with ({@code Outbox.Builder.fairClaims}), or null */
    ClaimFairness fairClaims() {
        return null;
    }

    private List<String> relayJvm(String heap) {
        return fairClaims() == null
                ? List.of(heap)
                : List.of(heap, "-D" + BoundedHeapRelayMain.FAIR_CLAIMS + "=" + fairClaims());
    }
}
