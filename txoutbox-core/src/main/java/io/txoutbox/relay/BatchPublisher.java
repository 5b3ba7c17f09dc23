package io.txoutbox.relay;

import io.txoutbox.OutboxException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.PublishPart;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one claimed batch and waits for its outcomes, with the publish timeout: every failure, a
 * timeout included, becomes a retry of the whole batch, never an exception. While the batch is in
 * flight its lease is extended whenever it would otherwise end before the publish timeout, never beyond
 * it.
 *
 * <p>The publisher is called on the relay's publish thread, so that a publisher that blocks before it
 * returns its stage (a connection being set up, a full buffer) is timed too: the publish timeout counts
 * from the call, not from the returned stage.
 */
final class BatchPublisher {
    private static final Logger log = LoggerFactory.getLogger(DefaultRelay.class);

    private final RelayScope scope;
    private final Publisher publisher;
    private final Duration publishTimeout;
    /** Time kept for the mark after the publish timeout when a lease is extended. */
    private final Duration leaseMargin;

    private final ThreadFactory publishThreads;
    private final ReentrantLock callerLock = new ReentrantLock();
    private ThreadPoolExecutor callerPool; // guarded by callerLock

    /**
     * @param scope the relay this publishes for
     * @param publisher the transport
     * @param publishTimeout how long one batch may take, from the call of {@code publish()}
     * @param publishThreads makes the thread {@code publish()} is called on
     */
    BatchPublisher(RelayScope scope, Publisher publisher, Duration publishTimeout, ThreadFactory publishThreads) {
        this.scope = scope;
        this.publisher = publisher;
        this.publishTimeout = publishTimeout;
        Duration headroom = scope.lease().minus(publishTimeout);
        this.leaseMargin = headroom.compareTo(Duration.ofMillis(100)) < 0
                ? Duration.ofMillis(100)
                : headroom.compareTo(Duration.ofSeconds(2)) > 0 ? Duration.ofSeconds(2) : headroom;
        this.publishThreads = publishThreads;
    }

    /** A failure thrown by {@code publish()} itself, before it returned its stage. */
    private static final class SyncFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SyncFailure(Throwable cause) {
            super(cause);
        }
    }

    /** Told of each part of a batch confirmed while other parts are still out. */
    @FunctionalInterface
    interface EarlyParts {
        /** Ignores early parts: the batch's outcomes count only when all are in. */
        EarlyParts NONE = (indexes, outcomes) -> {};

        /**
         * Called on the thread waiting for the batch, before {@code publish} returns.
         *
         * @param indexes positions in the batch
         * @param outcomes their outcomes, checked (never {@code null})
         */
        void settled(List<Integer> indexes, List<PublishOutcome> outcomes);
    }

    /** The outcomes of a part that completed while others were still out. */
    private record Part(List<Integer> indexes, List<PublishOutcome> outcomes) {}

    /** Put into the queue of news when the whole batch's result is in. */
    private static final Object DONE = new Object();

    /**
     * @param events the batch, oldest first
     * @param claimStart when the claim started on this JVM's monotonic clock: the lease runs from then
     * @return one outcome per event
     */
    List<PublishOutcome> publish(List<ClaimedEvent> events, long claimStart) {
        return publish(events, claimStart, EarlyParts.NONE);
    }

    /**
     * @param events the batch, oldest first
     * @param claimStart when the claim started on this JVM's monotonic clock: the lease runs from then
     * @param early told of each part confirmed while others are still out
     * @return one outcome per event (those of early parts included)
     */
    List<PublishOutcome> publish(List<ClaimedEvent> events, long claimStart, EarlyParts early) {
        CompletableFuture<List<PublishOutcome>> result = new CompletableFuture<>();
        LinkedBlockingQueue<Object> news = new LinkedBlockingQueue<>();
        result.whenComplete((outcomes, error) -> news.add(DONE));
        List<ClaimedEvent> batch = Collections.unmodifiableList(events);
        long callStart = System.nanoTime();
        long deadline = callStart + publishTimeout.toNanos();
        try {
            caller().execute(() -> call(batch, result, news));
        } catch (RejectedExecutionException e) {
            scope.reporter().error("publish", e);
            return allRetry(events, "publisher failed: " + RelayReporter.describe(e));
        }
        long leaseEnd = claimStart + scope.lease().toNanos();
        try {
            while (true) {
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    throw new TimeoutException();
                }
                long extendAt = leaseEnd - leaseMargin.toNanos();
                long until = extendAt - deadline < 0 ? extendAt : deadline;
                if (until - now > 0) {
                    Object item = news.poll(until - now, TimeUnit.NANOSECONDS);
                    if (result.isDone()) {
                        return checked(events, result.get());
                    }
                    if (item instanceof Part part) {
                        early.settled(part.indexes(), part.outcomes());
                        continue;
                    }
                    // otherwise the deadline or the time to extend the lease: decided below
                }
                now = System.nanoTime();
                if (now - deadline < 0 && now - extendAt >= 0) {
                    leaseEnd = extendLease(events, now, deadline);
                }
            }
        } catch (TimeoutException e) {
            result.cancel(true);
            String message = "relay '" + scope.name() + "' publish timed out after " + publishTimeout.toMillis()
                    + " ms (batch=" + events.size() + ")";
            scope.reporter().error("publish", new OutboxException(message, e));
            return allRetry(events, message);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof SyncFailure sync) {
                scope.reporter().error("publish", sync.getCause());
                return allRetry(events, "publisher failed: " + RelayReporter.describe(sync.getCause()));
            }
            scope.reporter().error("publish", cause);
            return allRetry(events, "publish failed: " + RelayReporter.describe(cause));
        } catch (InterruptedException e) {
            result.cancel(true);
            Thread.currentThread().interrupt();
            return allRetry(events, "relay '" + scope.name() + "' was interrupted while waiting for the broker");
        }
    }

    /**
     * Runs on the publish thread: calls the publisher unless the relay gave up before the call started.
     * Each part that completes while others are still out goes into {@code news}; the last completes
     * {@code result} with the outcomes of the whole batch.
     */
    private void call(
            List<ClaimedEvent> batch,
            CompletableFuture<List<PublishOutcome>> result,
            LinkedBlockingQueue<Object> news) {
        if (result.isDone()) {
            return;
        }
        List<PublishPart> parts;
        try {
            parts = publisher.publishParts(batch);
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(new SyncFailure(e));
            return;
        }
        String invalid = invalidParts(parts, batch.size());
        if (invalid != null) {
            for (PublishPart p : parts == null ? List.<PublishPart>of() : parts) {
                if (p != null) {
                    p.outcomes().toCompletableFuture().cancel(true);
                }
            }
            result.completeExceptionally(new OutboxException("relay '" + scope.name() + "': " + invalid));
            return;
        }
        PublishOutcome[] all = new PublishOutcome[batch.size()];
        AtomicInteger open = new AtomicInteger(parts.size());
        List<CompletableFuture<List<PublishOutcome>>> stages = new ArrayList<>(parts.size());
        for (PublishPart p : parts) {
            stages.add(p.outcomes().toCompletableFuture());
        }
        for (int k = 0; k < parts.size(); k++) {
            List<Integer> indexes = parts.get(k).indexes();
            stages.get(k).whenComplete((outcomes, error) -> {
                List<PublishOutcome> checked = checkedPart(indexes, outcomes, error);
                for (int j = 0; j < indexes.size(); j++) {
                    all[indexes.get(j)] = checked.get(j);
                }
                // The decrement publishes the writes above to whoever sees the count reach zero.
                if (open.decrementAndGet() == 0) {
                    result.complete(Arrays.asList(all));
                } else {
                    news.add(new Part(indexes, checked));
                }
            });
        }
        // A batch the relay gave up on while publish() blocked: the broker's confirmations no longer count.
        result.whenComplete((outcomes, error) -> {
            if (result.isCancelled()) {
                stages.forEach(stage -> stage.cancel(true));
            }
        });
    }

    /** @return why the parts do not hold each position of the batch exactly once, or {@code null} */
    private static String invalidParts(List<PublishPart> parts, int size) {
        if (parts == null || parts.isEmpty()) {
            return "the publisher returned no parts for " + size + " events; they must hold every event once";
        }
        boolean[] seen = new boolean[size];
        int count = 0;
        for (PublishPart p : parts) {
            if (p == null) {
                return "the publisher returned a null part";
            }
            for (int i : p.indexes()) {
                if (i < 0 || i >= size || seen[i]) {
                    return "the publisher's parts name event " + i + " of " + size
                            + (i < 0 || i >= size ? " (out of range)" : " twice");
                }
                seen[i] = true;
                count++;
            }
        }
        return count == size ? null : "the publisher's parts hold " + count + " of " + size + " events";
    }

    /** A part's outcomes: one per index, a failed or malformed part retried as a whole. */
    private List<PublishOutcome> checkedPart(List<Integer> indexes, List<PublishOutcome> outcomes, Throwable error) {
        if (error != null) {
            Throwable cause =
                    error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (!(cause instanceof CancellationException)) {
                scope.reporter().error("publish", cause);
            }
            return Collections.nCopies(
                    indexes.size(), PublishOutcome.retry("publish failed: " + RelayReporter.describe(cause)));
        }
        if (outcomes == null || outcomes.size() != indexes.size()) {
            OutboxException e = new OutboxException("relay '" + scope.name() + "': the publisher returned "
                    + (outcomes == null ? "null" : outcomes.size() + " outcomes") + " for " + indexes.size()
                    + " events; it must return one outcome per event");
            scope.reporter().error("publish", e);
            return Collections.nCopies(indexes.size(), PublishOutcome.retry(e.getMessage()));
        }
        List<PublishOutcome> checked = new ArrayList<>(outcomes);
        for (int i = 0; i < checked.size(); i++) {
            if (checked.get(i) == null) {
                checked.set(i, PublishOutcome.retry("the publisher returned no outcome for this event"));
            }
        }
        return checked;
    }

    /** @return the new end of the lease on this JVM's monotonic clock */
    private long extendLease(List<ClaimedEvent> events, long now, long deadline) {
        Duration wanted = Duration.ofNanos(deadline - now).plus(leaseMargin);
        Duration extension = wanted.compareTo(scope.lease()) < 0 ? wanted : scope.lease();
        List<UUID> ids = new ArrayList<>(events.size());
        for (ClaimedEvent e : events) {
            ids.add(e.id());
        }
        try {
            int extended = scope.store().extendLease(scope.owner(), ids, extension);
            if (extended == 0) {
                return Long.MAX_VALUE / 2 + now; // nothing to keep: stop trying for this batch
            }
            log.debug(
                    "txoutbox: relay '{}' extended the lease of {} events by {} ms",
                    scope.name(),
                    extended,
                    extension.toMillis());
            return now + extension.toNanos();
        } catch (RuntimeException e) {
            scope.reporter().error("extend lease", e);
            return Long.MAX_VALUE / 2 + now;
        }
    }

    /** One outcome per event, or a retry of the whole batch naming what the publisher got wrong. */
    private List<PublishOutcome> checked(List<ClaimedEvent> events, List<PublishOutcome> outcomes) {
        if (outcomes == null || outcomes.size() != events.size()) {
            OutboxException e = new OutboxException("relay '" + scope.name() + "': the publisher returned "
                    + (outcomes == null ? "null" : outcomes.size() + " outcomes") + " for " + events.size()
                    + " events; it must return one outcome per event");
            scope.reporter().error("publish", e);
            return allRetry(events, e.getMessage());
        }
        List<PublishOutcome> checked = new ArrayList<>(outcomes);
        for (int i = 0; i < checked.size(); i++) {
            if (checked.get(i) == null) {
                checked.set(i, PublishOutcome.retry("the publisher returned no outcome for this event"));
            }
        }
        return checked;
    }

    /** The thread publish() is called on: one at a time, ending itself when idle. */
    private Executor caller() {
        callerLock.lock();
        try {
            if (callerPool == null || callerPool.isShutdown()) {
                callerPool =
                        new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), publishThreads);
            }
            return callerPool;
        } finally {
            callerLock.unlock();
        }
    }

    /** Lets the publish thread end; a batch in flight finishes first. */
    void shutdown() {
        callerLock.lock();
        try {
            if (callerPool != null) {
                callerPool.shutdown();
            }
        } finally {
            callerLock.unlock();
        }
    }

    static List<PublishOutcome> allRetry(List<ClaimedEvent> events, String reason) {
        PublishOutcome retry = PublishOutcome.retry(reason);
        return Collections.nCopies(events.size(), retry);
    }
}
