package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: a relay process killed after the broker confirmed but before the mark loses nothing;
 * another relay publishes the same event again, with the same id, once the lease has expired.
 */
abstract class CrashAfterConfirmContract extends DatabaseTest {

    @Test
    void relay_killed_between_confirm_and_mark_causes_a_republish_with_the_same_id_not_a_loss() throws Exception {
        Outbox outbox = newOutbox();
        String broker = newTable();
        execute("CREATE TABLE " + broker + " (event_id varchar(36) NOT NULL)");
        List<OutboxEvent> appended = appendCommitted(outbox, event("order.placed", "o-1"), event("order.paid", "o-1"));
        List<UUID> ids = appended.stream().map(OutboxEvent::id).toList();

        Process doomed = startCrashingRelay(database(), outbox.table(), broker, 2_000);
        assertThat(doomed.waitFor(60, TimeUnit.SECONDS))
                .as("the crashing relay exits")
                .isTrue();
        assertThat(doomed.exitValue()).as("it died after the broker confirmed").isEqualTo(CrashingRelayMain.EXIT_CODE);

        for (UUID id : ids) {
            assertThat(count("SELECT count(*) FROM " + broker + " WHERE event_id = ?", id.toString()))
                    .as("the broker received %s once before the crash", id)
                    .isEqualTo(1);
            assertThat(column(outbox, id, "lease_owner"))
                    .as("still leased by the dead relay")
                    .startsWith("doomed@");
        }

        RecordingPublisher survivor = new RecordingPublisher();
        try (Relay relay = outbox.relay(survivor).name("survivor").build()) {
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> relay.runOnce() == 0 && survivor.publishedCount() == 2);
        }
        assertThat(survivor.publishedIds()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(survivor.published()).allSatisfy(e -> assertThat(e.attempt()).isEqualTo(2));
        assertThat(rows(outbox)).as("nothing left behind").isZero();
    }

    private static Process startCrashingRelay(TestDatabase database, String table, String broker, long leaseMillis)
            throws Exception {
        return ChildJvm.start(
                List.of(), CrashingRelayMain.class, database.name(), table, broker, Long.toString(leaseMillis));
    }
}
