package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.sql.Connection;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A row committed long after its neighbours is still claimed promptly, while the relay never runs out
 * of newer work. A relay that starts its claims where its last claim ended (so as not to walk the index
 * entries of rows it already published) has passed the late row's place long before it commits; its
 * claims from the bottom of the index must still find it, and not only once traffic stops.
 */
abstract class LateCommitContract extends DatabaseTest {

    @Test
    void a_row_committed_long_after_newer_rows_were_published_is_claimed_while_traffic_goes_on() throws Exception {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        Set<UUID> appended = ConcurrentHashMap.newKeySet();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            int n = 0;
            try {
                while (producing.get()) {
                    OutboxEvent e = appendCommitted(outbox, event("order.placed", "steady-" + n++))
                            .get(0);
                    appended.add(e.id());
                    outbox.committed();
                    Thread.sleep(2);
                }
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        });
        try (Relay relay = outbox.relay(broker).batchSize(20).build();
                Connection late = dataSource().getConnection()) {
            late.setAutoCommit(false);
            OutboxEvent lateEvent = outbox.append(late, event("order.placed", "late"));
            relay.start();
            producer.start();
            // The relay claims and publishes well past the late row's place in the index.
            await().atMost(Duration.ofSeconds(60)).until(() -> broker.publishedCount() >= 300);
            assertThat(broker.publishedIds()).doesNotContain(lateEvent.id());

            late.commit();
            outbox.committed();
            int publishedAtCommit = broker.publishedCount();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> broker.publishedIds().contains(lateEvent.id()));
            assertThat(producer.isAlive())
                    .as("the late row was claimed while newer rows kept coming")
                    .isTrue();
            assertThat(broker.publishedCount())
                    .as("newer rows were published after the late commit too")
                    .isGreaterThan(publishedAtCommit);

            producing.set(false);
            producer.join();
            assertThat(producerFailure.get()).isNull();
            await().atMost(Duration.ofSeconds(30)).until(() -> rows(outbox) == 0);
            assertThat(broker.publishedIds()).containsAll(appended).contains(lateEvent.id());
        } finally {
            producing.set(false);
            producer.join();
        }
    }
}
