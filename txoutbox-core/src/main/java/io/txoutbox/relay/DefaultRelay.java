package io.txoutbox.relay;

import io.txoutbox.OutboxException;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.spi.RelayListener.BatchReport;
import io.txoutbox.spi.WakeSubscription;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class DefaultRelay implements Relay {
    private static final Logger log = LoggerFactory.getLogger(DefaultRelay.class);

    /**
     * An idle relay announces its idleness (for the trigger of writers that are not txoutbox) once its
     * adaptive sleep has doubled this many times (or reached the poll interval): a relay between two
     * batches of a steady flow stays unannounced, so those writers do not notify it.
     */
    private static final int ANNOUNCE_IDLE_AFTER_DOUBLINGS = 2;
    /** Enough doublings of the adaptive sleep to reach any poll interval from any minimum. */
    private static final int MAX_DOUBLINGS = 30;
    /** A wait shorter than this skips the query for the next due time: the relay looks again soon anyway. */
    private static final Duration ASK_NEXT_DUE_AFTER = Duration.ofMillis(50);
    /** The longest a retry may be pushed out by a broker's {@code Retry-After}. */
    private static final Duration MAX_NOT_BEFORE = Duration.ofHours(24);
    /** The longest pause after a failed cycle. */
    private static final Duration MAX_ERROR_PAUSE = Duration.ofSeconds(30);
    /** Attempts to mark a batch before leaving it to the lease (a re-publish later, never a loss). */
    private static final int COMPLETE_TRIES = 3;

    private final String name;
    private final String owner;
    private final OutboxStore store;
    private final InstantSource clock;
    private final Publisher publisher;
    private final RelayListener listener;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration minPollInterval;
    private final Duration announceIdleAfter;
    private final Duration lease;
    private final Duration publishTimeout;
    private final Backoff backoff;
    private final int maxAttempts;
    private final Duration retainPublished;
    private final Duration purgeInterval;
    private final int purgeBatchSize;
    private final boolean listen;
    private final ThreadFactory threadFactory;
    private final RandomGenerator random;
    private final ReentrantLock randomLock = new ReentrantLock();
    private final long maxBatchBytes;
    /** Time kept for the mark after the publish timeout when a lease is extended. */
    private final Duration leaseMargin;

    private final ThreadFactory publishThreads;
    private final ReentrantLock callerLock = new ReentrantLock();
    private java.util.concurrent.ThreadPoolExecutor callerPool; // guarded by callerLock

    private final WakeSignal wake = new WakeSignal();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private volatile boolean running;
    private volatile boolean paused;
    private volatile Thread thread;
    private volatile WakeSubscription subscription = WakeSubscription.NONE;
    private volatile boolean listening;
    /** Whether the relay told its subscription it is idle; the relay thread's own. */
    private boolean announcedIdle;

    private Instant lastPurge = Instant.MIN;

    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong fenced = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    DefaultRelay(Relay.Builder b, Duration minPollInterval) {
        this.name = b.name;
        this.owner = ownerId(b.name);
        this.store = b.store;
        this.clock = b.clock;
        this.publisher = b.publisher;
        this.listener = b.listener;
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.minPollInterval = minPollInterval;
        this.announceIdleAfter = min(minPollInterval.multipliedBy(1L << ANNOUNCE_IDLE_AFTER_DOUBLINGS), pollInterval);
        this.lease = b.leaseDuration;
        this.publishTimeout = b.publishTimeout;
        this.backoff = b.backoff;
        this.maxAttempts = b.maxAttempts;
        this.retainPublished = b.retainPublished;
        this.purgeInterval = b.purgeInterval;
        this.purgeBatchSize = b.purgeBatchSize;
        this.listen = b.listen;
        this.threadFactory = b.threadFactory != null ? b.threadFactory : defaultThreads(b.name);
        this.random = b.random;
        this.maxBatchBytes = b.maxBatchBytes > 0 ? b.maxBatchBytes : Relay.Builder.defaultMaxBatchBytes();
        Duration headroom = b.leaseDuration.minus(b.publishTimeout);
        this.leaseMargin = headroom.compareTo(Duration.ofMillis(100)) < 0
                ? Duration.ofMillis(100)
                : headroom.compareTo(Duration.ofSeconds(2)) > 0 ? Duration.ofSeconds(2) : headroom;
        this.publishThreads = b.threadFactory != null
                ? b.threadFactory
                : r -> {
                    Thread t = new Thread(r, "txoutbox-publish-" + b.name);
                    t.setDaemon(true);
                    return t;
                };
    }

    private static String ownerId(String name) {
        String host = System.getenv().getOrDefault("HOSTNAME", "host");
        if (host.length() > 64) {
            host = host.substring(0, 64);
        }
        byte[] nonce = new byte[4];
        ThreadLocalRandom.current().nextBytes(nonce);
        return name + "@" + host + ":" + ProcessHandle.current().pid() + ":"
                + HexFormat.of().formatHex(nonce);
    }

    private static ThreadFactory defaultThreads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, (n.getAndIncrement() == 0 ? "txoutbox-relay-" : "txoutbox-listen-") + name);
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "relay '" + name + "' was already started; build a new relay to start again");
        }
        running = true;
        Thread t = threadFactory.newThread(this::loop);
        thread = t;
        listening = listen;
        subscription = store.subscribe(wake::signal, listen, threadFactory, e -> reportError("listen", e));
        t.start();
        log.info(
                "txoutbox: relay '{}' started on table {} (owner {}, batch {}, poll {} ms, lease {} ms)",
                name,
                store.table(),
                owner,
                batchSize,
                pollInterval.toMillis(),
                lease.toMillis());
    }

    @Override
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        running = false;
        wake.signal();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            long waitMillis = publishTimeout.toMillis() + 5_000;
            try {
                t.join(waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                log.warn(
                        "txoutbox: relay '{}' did not finish its batch within {} ms; interrupting it",
                        name,
                        waitMillis);
                t.interrupt();
            }
        }
        try {
            subscription.close();
        } catch (RuntimeException e) {
            reportError("listen", e);
        }
        try {
            int released = store.releaseLeases(owner);
            if (released > 0) {
                log.info("txoutbox: relay '{}' returned {} leases", name, released);
            }
        } catch (RuntimeException e) {
            reportError("release", e);
        }
        shutdownCaller();
        log.info("txoutbox: relay '{}' stopped ({})", name, metrics());
    }

    /**
     * Claims while there is work; in between, sleeps adaptively: {@code minPollInterval} after a claim
     * that found work, doubling with each empty claim up to {@code pollInterval}, and never past the next
     * delayed event or retry. Any wake-up ends a sleep at once, and one that came while the relay was
     * busy is kept, so none is lost between a claim and the sleep after it. Once the sleep has grown, the
     * relay announces that it is idle; its subscription then wakes it for a last look, so that a row
     * committed while it was going idle is never left for the poll.
     */
    private void loop() {
        Duration errorPause = Duration.ZERO;
        int emptyClaims = 0;
        while (running) {
            if (paused) {
                setIdle(false);
                wake.await(pollInterval);
                continue;
            }
            try {
                int claimed = runOnce();
                errorPause = Duration.ZERO;
                purgeIfDue();
                if (claimed > 0) {
                    emptyClaims = 0;
                    setIdle(false);
                } else if (emptyClaims < MAX_DOUBLINGS) {
                    emptyClaims++;
                }
                // A wake-up that came during the cycle (consumed here) may be for rows the claim missed.
                if (claimed >= batchSize || !running || wake.consume()) {
                    continue;
                }
                Duration wait = idleWait(emptyClaims);
                if (wait.compareTo(announceIdleAfter) >= 0) {
                    setIdle(true);
                }
                wake.await(wait);
            } catch (RuntimeException | Error e) {
                reportError("claim", e);
                stopListeningIfThePoolIsStarved(e);
                errorPause =
                        errorPause.isZero() ? Duration.ofMillis(100) : min(errorPause.multipliedBy(2), MAX_ERROR_PAUSE);
                wake.await(min(errorPause, pollInterval.multipliedBy(5)));
            }
        }
    }

    /**
     * The LISTEN connection is borrowed from the application's pool for the relay's whole life. When the
     * pool then cannot lend the relay a connection (a pool of one, or one sized without it), give the
     * LISTEN connection back and poll instead of starving the relay and the application.
     */
    private void stopListeningIfThePoolIsStarved(Throwable e) {
        if (!listening || !isPoolTimeout(e)) {
            return;
        }
        listening = false;
        log.warn(
                "txoutbox: relay '{}' could not borrow a connection while its LISTEN connection held one; it"
                        + " stops listening and polls every {} ms. Size the pool for the LISTEN connection (one"
                        + " per listening relay) or build the relay with listen(false)",
                name,
                pollInterval.toMillis());
        try {
            subscription.close();
        } catch (RuntimeException closeFailure) {
            reportError("listen", closeFailure);
        }
        announcedIdle = false;
        subscription = store.subscribe(wake::signal, false, threadFactory, err -> reportError("listen", err));
    }

    /** Tells the subscription when the relay goes idle or has work again; each change once. */
    private void setIdle(boolean idle) {
        if (idle == announcedIdle) {
            return;
        }
        announcedIdle = idle;
        try {
            if (idle) {
                subscription.idle();
            } else {
                subscription.busy();
            }
        } catch (RuntimeException e) {
            reportError("listen", e);
        }
    }

    private static boolean isPoolTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLTransientConnectionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The adaptive sleep after {@code emptyClaims} claims in a row that found nothing, up to the poll
     * interval, cut short by the next delayed event or retry; never below the minimum, which also keeps
     * a relay from spinning on rows that another relay is claiming.
     */
    private Duration idleWait(int emptyClaims) {
        Duration adaptive = min(minPollInterval.multipliedBy(1L << emptyClaims), pollInterval);
        if (adaptive.compareTo(ASK_NEXT_DUE_AFTER) < 0) {
            return adaptive;
        }
        Optional<Instant> due;
        try {
            due = store.nextDueAt();
        } catch (RuntimeException e) {
            reportError("claim", e);
            return adaptive;
        }
        if (due.isEmpty()) {
            return adaptive;
        }
        Duration untilDue = Duration.between(clock.instant(), due.get());
        if (untilDue.compareTo(minPollInterval) < 0) {
            return minPollInterval;
        }
        return min(untilDue, adaptive);
    }

    @Override
    public int runOnce() {
        long claimStart = System.nanoTime();
        ClaimResult claim = store.claim(owner, batchSize, maxBatchBytes, lease, clock.instant());
        if (claim.size() == 0) {
            return 0;
        }
        batches.incrementAndGet();
        List<ClaimedEvent> events = claim.events();
        Duration publishDuration = Duration.ZERO;
        Instant now;
        List<Completion> completions = new ArrayList<>(claim.size());
        List<PublishOutcome> finals = new ArrayList<>(events.size());
        try {
            long startNanos = System.nanoTime();
            List<PublishOutcome> outcomes = events.isEmpty() ? List.of() : publish(events, claimStart);
            publishDuration = Duration.ofNanos(System.nanoTime() - startNanos);
            now = clock.instant();
            for (int i = 0; i < events.size(); i++) {
                ClaimedEvent event = events.get(i);
                PublishOutcome outcome = settle(event, outcomes.get(i));
                finals.add(outcome);
                completions.add(completion(event.id(), outcome, now, event.attempt()));
            }
        } catch (RuntimeException | Error e) {
            // The claim has committed and counted the attempt: whatever failed, the batch still ends in a
            // mark, or its attempts would climb past the budget with every expired lease.
            reportError("publish", e);
            now = safeNow();
            completions.clear();
            finals.clear();
            PublishOutcome failed = PublishOutcome.retry("relay '" + name + "' failed before marking: " + describe(e));
            for (ClaimedEvent event : events) {
                PublishOutcome outcome = settle(event, failed);
                finals.add(outcome);
                completions.add(safeCompletion(event, outcome, now));
            }
        }
        for (Map.Entry<UUID, String> bad : claim.unreadable().entrySet()) {
            completions.add(new Completion(bad.getKey(), Outcome.DEAD, null, bad.getValue()));
        }
        if (!claim.quarantined().isEmpty()) {
            dead.addAndGet(claim.quarantined().size());
            log.warn(
                    "txoutbox: relay '{}' marked {} rows dead whose id cannot be read: {}",
                    name,
                    claim.quarantined().size(),
                    claim.quarantined());
        }
        if (completions.isEmpty()) {
            return claim.size();
        }

        Set<UUID> marked = complete(completions, now);
        Set<UUID> fencedIds = new java.util.HashSet<>();
        if (marked == null) {
            // The database refused every try: nothing was marked, and the lease will bring the batch back.
            notifyListener(new BatchReport(
                    name,
                    events,
                    finals,
                    publishDuration,
                    Set.of(),
                    claim.unreadable().size()));
            return claim.size();
        }
        for (Completion c : completions) {
            if (!marked.contains(c.id())) {
                fencedIds.add(c.id());
            }
        }
        count(events, finals, fencedIds, claim.unreadable().keySet());
        if (!fencedIds.isEmpty()) {
            log.warn(
                    "txoutbox: relay '{}' lost the lease of {} of {} events before marking them (lease {} ms);"
                            + " another relay owns them now and will publish them again",
                    name,
                    fencedIds.size(),
                    completions.size(),
                    lease.toMillis());
        }
        if (!claim.unreadable().isEmpty()) {
            log.warn(
                    "txoutbox: relay '{}' marked {} unreadable rows dead: {}",
                    name,
                    claim.unreadable().size(),
                    claim.unreadable());
        }
        notifyListener(new BatchReport(
                name,
                events,
                finals,
                publishDuration,
                fencedIds,
                claim.unreadable().size()));
        return claim.size();
    }

    private Instant safeNow() {
        try {
            return clock.instant();
        } catch (RuntimeException e) {
            return Instant.now();
        }
    }

    /** A completion that cannot fail: the backoff if it works, else one second. */
    private Completion safeCompletion(ClaimedEvent event, PublishOutcome outcome, Instant now) {
        try {
            return completion(event.id(), outcome, now, event.attempt());
        } catch (RuntimeException e) {
            return outcome.outcome() == Outcome.RETRY
                    ? new Completion(event.id(), Outcome.RETRY, now.plusSeconds(1), outcome.reason())
                    : new Completion(event.id(), outcome.outcome(), null, outcome.reason());
        }
    }

    /** A failure thrown by {@code publish()} itself, before it returned its stage. */
    private static final class SyncFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SyncFailure(Throwable cause) {
            super(cause);
        }
    }

    /**
     * Publishes a batch and waits for its outcomes; every failure becomes a retry of the whole batch.
     *
     * <p>The publisher is called on the relay's publish thread, so that a publisher that blocks before it
     * returns its stage (a connection being set up, a full buffer) is timed too: the publish timeout counts
     * from the call, not from the returned stage. While the batch is in flight its lease is extended
     * whenever it would otherwise end before the publish timeout, never beyond it.
     */
    private List<PublishOutcome> publish(List<ClaimedEvent> events, long claimStart) {
        CompletableFuture<List<PublishOutcome>> result = new CompletableFuture<>();
        List<ClaimedEvent> batch = Collections.unmodifiableList(events);
        long callStart = System.nanoTime();
        long deadline = callStart + publishTimeout.toNanos();
        try {
            caller().execute(() -> call(batch, result));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            reportError("publish", e);
            return allRetry(events, "publisher failed: " + describe(e));
        }
        long leaseEnd = claimStart + lease.toNanos();
        try {
            while (true) {
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    throw new TimeoutException();
                }
                long extendAt = leaseEnd - leaseMargin.toNanos();
                long until = extendAt - deadline < 0 ? extendAt : deadline;
                if (until - now > 0) {
                    try {
                        return checked(events, result.get(until - now, TimeUnit.NANOSECONDS));
                    } catch (TimeoutException slice) {
                        // the deadline or the time to extend the lease: decided below
                    }
                }
                now = System.nanoTime();
                if (now - deadline < 0 && now - extendAt >= 0) {
                    leaseEnd = extendLease(events, now, deadline);
                }
            }
        } catch (TimeoutException e) {
            result.cancel(true);
            String message = "relay '" + name + "' publish timed out after " + publishTimeout.toMillis() + " ms (batch="
                    + events.size() + ")";
            reportError("publish", new OutboxException(message, e));
            return allRetry(events, message);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof SyncFailure sync) {
                reportError("publish", sync.getCause());
                return allRetry(events, "publisher failed: " + describe(sync.getCause()));
            }
            reportError("publish", cause);
            return allRetry(events, "publish failed: " + describe(cause));
        } catch (InterruptedException e) {
            result.cancel(true);
            Thread.currentThread().interrupt();
            return allRetry(events, "relay '" + name + "' was interrupted while waiting for the broker");
        }
    }

    /** Runs on the publish thread: calls the publisher unless the relay gave up before the call started. */
    private void call(List<ClaimedEvent> batch, CompletableFuture<List<PublishOutcome>> result) {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<List<PublishOutcome>> stage;
        try {
            stage = publisher.publish(batch).toCompletableFuture();
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(new SyncFailure(e));
            return;
        }
        stage.whenComplete((outcomes, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(outcomes);
            }
        });
        // A batch the relay gave up on while publish() blocked: the broker's confirmations no longer count.
        result.whenComplete((outcomes, error) -> {
            if (result.isCancelled()) {
                stage.cancel(true);
            }
        });
    }

    /** @return the new end of the lease on this JVM's monotonic clock */
    private long extendLease(List<ClaimedEvent> events, long now, long deadline) {
        Duration wanted = Duration.ofNanos(deadline - now).plus(leaseMargin);
        Duration extension = wanted.compareTo(lease) < 0 ? wanted : lease;
        List<UUID> ids = new ArrayList<>(events.size());
        for (ClaimedEvent e : events) {
            ids.add(e.id());
        }
        try {
            int extended = store.extendLease(owner, ids, extension);
            if (extended == 0) {
                return Long.MAX_VALUE / 2 + now; // nothing to keep: stop trying for this batch
            }
            log.debug(
                    "txoutbox: relay '{}' extended the lease of {} events by {} ms",
                    name,
                    extended,
                    extension.toMillis());
            return now + extension.toNanos();
        } catch (RuntimeException e) {
            reportError("extend lease", e);
            return Long.MAX_VALUE / 2 + now;
        }
    }

    private List<PublishOutcome> checked(List<ClaimedEvent> events, List<PublishOutcome> outcomes) {
        if (outcomes == null || outcomes.size() != events.size()) {
            OutboxException e = new OutboxException("relay '" + name + "': the publisher returned "
                    + (outcomes == null ? "null" : outcomes.size() + " outcomes") + " for " + events.size()
                    + " events; it must return one outcome per event");
            reportError("publish", e);
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
    private java.util.concurrent.Executor caller() {
        callerLock.lock();
        try {
            if (callerPool == null || callerPool.isShutdown()) {
                callerPool = new java.util.concurrent.ThreadPoolExecutor(
                        0, 1, 30, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), publishThreads);
            }
            return callerPool;
        } finally {
            callerLock.unlock();
        }
    }

    private void shutdownCaller() {
        callerLock.lock();
        try {
            if (callerPool != null) {
                callerPool.shutdown();
            }
        } finally {
            callerLock.unlock();
        }
    }

    /** Turns a retry on the last attempt into dead. */
    private PublishOutcome settle(ClaimedEvent event, PublishOutcome outcome) {
        if (outcome.outcome() != Outcome.RETRY) {
            return outcome;
        }
        int budget = event.maxAttempts() != null ? event.maxAttempts() : maxAttempts;
        if (event.attempt() >= budget) {
            return PublishOutcome.dead(
                    "gave up after " + event.attempt() + " attempts; last error: " + outcome.reason());
        }
        return outcome;
    }

    private Completion completion(UUID id, PublishOutcome outcome, Instant now, int attempt) {
        return switch (outcome.outcome()) {
            case PUBLISHED -> new Completion(id, Outcome.PUBLISHED, null, null);
            case DEAD -> new Completion(id, Outcome.DEAD, null, outcome.reason());
            case RETRY -> new Completion(id, Outcome.RETRY, nextAttemptAt(outcome, now, attempt), outcome.reason());
        };
    }

    private Instant nextAttemptAt(PublishOutcome outcome, Instant now, int attempt) {
        if (outcome.notBefore() != null) {
            Instant latest = now.plus(MAX_NOT_BEFORE);
            Instant notBefore = outcome.notBefore();
            return notBefore.isBefore(now) ? now : notBefore.isAfter(latest) ? latest : notBefore;
        }
        randomLock.lock();
        try {
            return now.plus(backoff.delay(attempt, random));
        } finally {
            randomLock.unlock();
        }
    }

    /**
     * Marks the batch; a failing database is retried briefly, then the lease decides (a re-publish).
     *
     * @return the ids marked, or {@code null} when the database refused every try
     */
    private Set<UUID> complete(List<Completion> completions, Instant now) {
        RuntimeException last = null;
        for (int tries = 1; tries <= COMPLETE_TRIES; tries++) {
            try {
                return store.complete(owner, completions, now, retainPublished != null);
            } catch (RuntimeException e) {
                last = e;
                reportError("complete", e);
                if (tries < COMPLETE_TRIES) {
                    wake.await(Duration.ofMillis(100L * tries));
                }
            }
        }
        log.warn(
                "txoutbox: relay '{}' could not mark a batch of {} events ({}); their lease will expire and they"
                        + " will be published again",
                name,
                completions.size(),
                last.getMessage());
        return null;
    }

    private void count(List<ClaimedEvent> events, List<PublishOutcome> finals, Set<UUID> fencedIds, Set<UUID> bad) {
        for (int i = 0; i < events.size(); i++) {
            if (fencedIds.contains(events.get(i).id())) {
                continue;
            }
            switch (finals.get(i).outcome()) {
                case PUBLISHED -> published.incrementAndGet();
                case RETRY -> retried.incrementAndGet();
                case DEAD -> dead.incrementAndGet();
            }
        }
        for (UUID id : bad) {
            if (!fencedIds.contains(id)) {
                dead.incrementAndGet();
            }
        }
        fenced.addAndGet(fencedIds.size());
    }

    private void purgeIfDue() {
        if (retainPublished == null) {
            return;
        }
        Instant now = clock.instant();
        if (lastPurge != Instant.MIN && Duration.between(lastPurge, now).compareTo(purgeInterval) < 0) {
            return;
        }
        lastPurge = now;
        try {
            int purged = store.purgePublished(now.minus(retainPublished), purgeBatchSize);
            if (purged > 0) {
                log.debug("txoutbox: relay '{}' purged {} published rows", name, purged);
            }
        } catch (RuntimeException e) {
            reportError("purge", e);
        }
    }

    private static List<PublishOutcome> allRetry(List<ClaimedEvent> events, String reason) {
        PublishOutcome retry = PublishOutcome.retry(reason);
        return Collections.nCopies(events.size(), retry);
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private void reportError(String phase, Throwable e) {
        errors.incrementAndGet();
        log.warn("txoutbox: relay '{}' {} failed: {}", name, phase, describe(e));
        try {
            listener.onError(name, phase, e);
        } catch (RuntimeException listenerFailure) {
            log.warn("txoutbox: relay '{}' listener threw from onError", name, listenerFailure);
        }
    }

    private void notifyListener(BatchReport report) {
        try {
            listener.onBatch(report);
        } catch (RuntimeException e) {
            log.warn("txoutbox: relay '{}' listener threw from onBatch", name, e);
        }
    }

    @Override
    public void pause() {
        paused = true;
        log.info("txoutbox: relay '{}' paused", name);
    }

    @Override
    public void resume() {
        paused = false;
        wake.signal();
        log.info("txoutbox: relay '{}' resumed", name);
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public boolean isRunning() {
        Thread t = thread;
        return running && t != null && t.isAlive();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public RelayMetrics metrics() {
        return new RelayMetrics(batches.get(), published.get(), retried.get(), dead.get(), fenced.get(), errors.get());
    }

    @Override
    public String toString() {
        return "Relay[name=" + name + ", table=" + store.table() + ", owner=" + owner + "]";
    }
}
