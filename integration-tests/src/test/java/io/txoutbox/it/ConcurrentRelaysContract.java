package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Acceptance 3: two relays share one table while four threads append; every event once, none twice. */
abstract class ConcurrentRelaysContract extends DatabaseTest {
    private static final int THREADS = 4;
    private static final int EVENTS = 10_000;
    private static final int PER_TRANSACTION = 5;

    @Test
    void two_relays_publish_every_event_of_four_concurrent_producers_exactly_once() throws Exception {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        Set<UUID> appended = ConcurrentHashMap.newKeySet();
        ExecutorService producers = Executors.newFixedThreadPool(THREADS);
        try (Relay first = outbox.relay(broker).name("first").batchSize(100).build();
                Relay second =
                        outbox.relay(broker).name("second").batchSize(100).build()) {
            first.start();
            second.start();
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(producers.submit(() -> {
                    for (int tx = 0; tx < EVENTS / THREADS / PER_TRANSACTION; tx++) {
                        List<OutboxEvent> events = new ArrayList<>();
                        for (int i = 0; i < PER_TRANSACTION; i++) {
                            events.add(event("order.placed", "t" + thread + "-" + tx + "-" + i));
                        }
                        outbox.inTransaction(c -> outbox.appendAll(c, events)).forEach(e -> appended.add(e.id()));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            assertThat(appended).hasSize(EVENTS);
            await().atMost(Duration.ofMinutes(2))
                    .until(() -> first.metrics().published() + second.metrics().published() == EVENTS);
            assertThat(broker.publishedCount()).isEqualTo(EVENTS);
            assertThat(first.metrics().published())
                    .as("the first relay took part")
                    .isPositive();
            assertThat(second.metrics().published())
                    .as("the second relay took part")
                    .isPositive();
        } finally {
            producers.shutdownNow();
        }
        assertThat(broker.publishedIds()).isEqualTo(appended);
        assertThat(broker.published()).as("no event published twice").hasSize(EVENTS);
        assertThat(broker.duplicates()).isEmpty();
        assertThat(rows(outbox)).isZero();
    }
}
