package io.txoutbox.reliability;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deadlocks and serialization failures, raised for real by PostgreSQL: a trigger on the outbox table
 * raises the SQLSTATE on the claim's {@code UPDATE} (or the mark's {@code DELETE}) the first N times.
 * The relay survives, reports every failure through {@link RelayListener#onError}, and loses nothing.
 */
class ClaimAndMarkConflictTest extends OutboxTableTest {
    private final List<String> functions = new ArrayList<>();

    @AfterEach
    void dropFunctions() {
        for (String f : functions) {
            execute("DROP FUNCTION IF EXISTS " + f + "() CASCADE");
            execute("DROP SEQUENCE IF EXISTS " + f + "_n");
        }
    }

    /** Raises {@code sqlState} on the first {@code times} statements that fire the trigger for a row. */
    private void injectFault(Outbox outbox, String when, String condition, String sqlState, int times) {
        String f = outbox.table() + "_fault";
        functions.add(f);
        execute("CREATE SEQUENCE " + f + "_n");
        execute("CREATE FUNCTION " + f + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF " + condition + " THEN"
                + "   IF nextval('" + f + "_n') <= " + times + " THEN"
                + "     RAISE EXCEPTION 'injected by the test' USING ERRCODE = '" + sqlState + "';"
                + "   END IF;"
                + " END IF;"
                + " RETURN " + (when.contains("DELETE") ? "OLD" : "NEW") + ";"
                + " END $$");
        execute("CREATE TRIGGER " + outbox.table() + "_fault " + when + " ON " + outbox.table()
                + " FOR EACH ROW EXECUTE FUNCTION " + f + "()");
    }

    @ParameterizedTest
    @ValueSource(strings = {"40P01", "40001"})
    void a_claim_that_fails_with_a_deadlock_or_serialization_failure_is_reported_and_retried_nothing_lost(
            String sqlState) {
        Outbox outbox = outboxBuilder().build();
        injectFault(
                outbox,
                "BEFORE UPDATE",
                "NEW.lease_owner IS NOT NULL AND NEW.lease_owner IS DISTINCT FROM OLD.lease_owner",
                sqlState,
                3);
        List<UUID> appended = new ArrayList<>();
        for (int tx = 0; tx < 3; tx++) {
            List<OutboxEvent> events = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                events.add(event("o-" + tx + "-" + i));
            }
            appendCommitted(outbox, events).forEach(e -> appended.add(e.id()));
        }
        RecordingPublisher broker = new RecordingPublisher();
        List<Map.Entry<String, Throwable>> errors = new CopyOnWriteArrayList<>();
        try (Relay relay = outbox.relay(broker)
                .pollInterval(Duration.ofMillis(200))
                .listener(recordingErrors(errors))
                .build()) {
            relay.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> broker.publishedCount() >= appended.size());
        }
        assertThat(broker.publishedIds()).containsExactlyInAnyOrderElementsOf(appended);
        assertThat(broker.duplicates())
                .as("a failed claim leases nothing: no duplicates")
                .isEmpty();
        assertThat(errors).hasSize(3).allSatisfy(e -> {
            assertThat(e.getKey()).isEqualTo("claim");
            assertThat(e.getValue()).isInstanceOfSatisfying(OutboxStoreException.class, s -> {
                assertThat(s.sqlState()).isEqualTo(sqlState);
                assertThat(s.isTransient()).isTrue();
                assertThat(s.operation()).isEqualTo("claim");
            });
        });
        assertThatOutbox(outbox).isDrained();
    }

    /** How often a relay tries a mark that fails transiently before it leaves the batch to the lease. */
    private static final int TRANSIENT_MARK_TRIES = 8;

    @ParameterizedTest
    @ValueSource(strings = {"40P01", "40001"})
    void a_mark_that_deadlocks_several_times_in_a_row_is_tried_again_until_it_holds_and_nothing_is_sent_twice(
            String sqlState) {
        Outbox outbox = outboxBuilder().build();
        // More failures in a row than the three quick tries a relay used to make (two relays on MariaDB
        // met that under load and published whole batches twice).
        injectFault(outbox, "BEFORE DELETE", "true", sqlState, 5);
        List<OutboxEvent> appended = appendCommitted(outbox, List.of(event("o-1"), event("o-2"), event("o-3")));
        RecordingPublisher broker = new RecordingPublisher();
        List<Map.Entry<String, Throwable>> errors = new CopyOnWriteArrayList<>();
        try (Relay relay =
                outbox.relay(broker).listener(recordingErrors(errors)).build()) {
            assertThat(relay.runOnce()).isEqualTo(3);
            assertThat(relay.metrics().published()).isEqualTo(3);
        }
        assertThat(errors)
                .extracting(Map.Entry::getKey)
                .containsExactly("complete", "complete", "complete", "complete", "complete");
        assertThat(broker.publishedIds())
                .containsExactlyInAnyOrderElementsOf(
                        appended.stream().map(OutboxEvent::id).toList());
        assertThat(broker.duplicates())
                .as("marked on the sixth try: nothing sent twice")
                .isEmpty();
        assertThatOutbox(outbox).isDrained();
    }

    @Test
    void a_mark_that_fails_on_every_try_leaves_the_batch_to_the_lease_and_it_is_published_again_with_the_same_ids() {
        Outbox outbox = outboxBuilder().build();
        // Fail every try the relay makes at a mark, then let the database work again.
        injectFault(outbox, "BEFORE DELETE", "true", "40001", TRANSIENT_MARK_TRIES);
        List<OutboxEvent> appended = appendCommitted(outbox, List.of(event("o-1"), event("o-2"), event("o-3")));
        RecordingPublisher broker = new RecordingPublisher();
        List<Map.Entry<String, Throwable>> errors = new CopyOnWriteArrayList<>();
        try (Relay relay = outbox.relay(broker)
                .leaseDuration(Duration.ofSeconds(1))
                .publishTimeout(Duration.ofMillis(500))
                .listener(recordingErrors(errors))
                .build()) {
            assertThat(relay.runOnce()).isEqualTo(3);
            assertThat(errors)
                    .extracting(Map.Entry::getKey)
                    .hasSize(TRANSIENT_MARK_TRIES)
                    .containsOnly("complete");
            assertThat(broker.publishedCount()).isEqualTo(3);
            // Nothing was marked: the three rows are still there (their 1 s lease ran out during the tries).
            OutboxStats stats = outbox.admin().stats();
            assertThat(stats.pending() + stats.inFlight()).isEqualTo(3);
            assertThat(stats.dead()).isZero();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> relay.runOnce() == 3);
        }
        assertThat(broker.duplicates())
                .as("each event published twice, no more")
                .hasSize(3)
                .allSatisfy((id, n) -> assertThat(n).isEqualTo(2));
        for (OutboxEvent e : appended) {
            List<ClaimedEvent> copies = broker.published().stream()
                    .filter(p -> p.id().equals(e.id()))
                    .toList();
            assertThat(copies)
                    .extracting(ClaimedEvent::payloadAsString)
                    .containsOnly(new String(e.payload(), java.nio.charset.StandardCharsets.UTF_8));
            assertThat(copies).extracting(ClaimedEvent::attempt).containsExactly(1, 2);
        }
        assertThatOutbox(outbox).isDrained();
    }
}
