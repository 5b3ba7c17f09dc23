package io.txoutbox.harness;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A broker whose confirmations come late: {@link #confirmAfter} confirms a batch a given time after the
 * call, unless the stage was cancelled first (the relay gave up on it in time), and counts how often each
 * event was delivered. For tests of publish timeouts and leases; a test wraps it in a {@code Publisher}
 * that adds its own behaviour. Close it to end its timer thread.
 */
public final class SlowBroker implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "txoutbox-test-slow-broker");
        t.setDaemon(true);
        return t;
    });
    private final Map<UUID, Integer> deliveries = new ConcurrentHashMap<>();

    /** Starts the broker's timer. */
    public SlowBroker() {}

    /**
     * @param batch the events to deliver
     * @param delay when to deliver and confirm them
     * @return a stage that completes with {@code PUBLISHED} for every event after {@code delay}; if it is
     *     cancelled before then, nothing is delivered
     */
    public CompletableFuture<List<PublishOutcome>> confirmAfter(List<ClaimedEvent> batch, Duration delay) {
        CompletableFuture<List<PublishOutcome>> confirmed = new CompletableFuture<>();
        timer.schedule(
                () -> {
                    if (!confirmed.isCancelled()) {
                        batch.forEach(e -> deliveries.merge(e.id(), 1, Integer::sum));
                        confirmed.complete(batch.stream()
                                .map(e -> PublishOutcome.PUBLISHED)
                                .toList());
                    }
                },
                delay.toMillis(),
                TimeUnit.MILLISECONDS);
        return confirmed;
    }

    /** @return how many times each delivered event was delivered, by id */
    public Map<UUID, Integer> deliveries() {
        return Map.copyOf(deliveries);
    }

    /** Stops the timer; confirmations still due never come. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
