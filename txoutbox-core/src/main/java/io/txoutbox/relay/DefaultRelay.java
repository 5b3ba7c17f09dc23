package io.txoutbox.relay;

import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.spi.WakeSubscription;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's life: its thread, the loop that runs {@link RelayCycle}s and sleeps adaptively in between,
 * its wake-up subscription (with the announcement of idleness), the purge of retained rows, pause,
 * resume and a graceful stop. What one cycle does is {@link RelayCycle}'s; how a batch is published,
 * {@link BatchPublisher}'s; what a failure becomes, {@link Settlement}'s.
 */
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
    static final Duration ASK_NEXT_DUE_AFTER = Duration.ofMillis(50);
    /** The first pause after a failed cycle; it doubles with every failure in a row. */
    static final Duration FIRST_ERROR_PAUSE = Duration.ofMillis(100);
    /** The longest pause after a failed cycle. */
    static final Duration MAX_ERROR_PAUSE = Duration.ofSeconds(30);

    private final RelayScope scope;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration minPollInterval;
    private final Duration announceIdleAfter;
    private final Duration publishTimeout;
    private final Duration retainPublished;
    private final Duration purgeInterval;
    private final int purgeBatchSize;
    private final boolean listen;
    private final ThreadFactory threadFactory;

    private final BatchPublisher publisher;
    private final RelayCycle cycle;
    private final Pipeline pipeline;

    private final WakeSignal wake = new WakeSignal();
    /** Cuts short a mark's retry pause when the relay stops; a separate signal, so no wake-up is taken. */
    private final WakeSignal stopping = new WakeSignal();

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

    /**
     * @param store the table to relay
     * @param clock the clock of due times, backoff and purges
     * @param target where to publish
     * @param settings the relay's settings, checked
     * @param listener hears every batch and every failure
     * @param threads makes the relay's threads, or {@code null} for daemon threads named after the relay
     * @param random the source of backoff jitter
     */
    DefaultRelay(
            OutboxStore store,
            InstantSource clock,
            Publisher target,
            RelaySettings settings,
            RelayListener listener,
            ThreadFactory threads,
            RandomGenerator random) {
        String name = settings.name();
        this.scope = new RelayScope(
                name,
                settings.newLeaseOwner(),
                store,
                clock,
                settings.leaseDuration(),
                new RelayReporter(name, listener));
        this.batchSize = settings.batchSize();
        this.pollInterval = settings.pollInterval();
        this.minPollInterval = settings.minPollInterval();
        this.announceIdleAfter = min(minPollInterval.multipliedBy(1L << ANNOUNCE_IDLE_AFTER_DOUBLINGS), pollInterval);
        this.publishTimeout = settings.publishTimeout();
        this.retainPublished = settings.retainPublished();
        this.purgeInterval = settings.purgeInterval();
        this.purgeBatchSize = RelaySettings.PURGE_BATCH_SIZE;
        this.listen = settings.listen();
        this.threadFactory = threads != null ? threads : defaultThreads(name);
        ThreadFactory publishThreads = threads != null ? threads : daemon("txoutbox-publish-" + name);
        this.publisher = new BatchPublisher(scope, target, publishTimeout, publishThreads);
        this.cycle = new RelayCycle(scope, settings, random, publisher, stopping);
        ThreadFactory finishThreads = threads != null ? threads : daemon("txoutbox-finish-" + name);
        this.pipeline = new Pipeline(settings.maxInFlightBatches(), finishThreads, e -> scope.reporter()
                .error("publish", e));
    }

    /** @return a factory of daemon threads of one name */
    private static ThreadFactory daemon(String threadName) {
        return r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        };
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
                    "relay '" + scope.name() + "' was already started; build a new relay to start again");
        }
        running = true;
        Thread t = threadFactory.newThread(this::loop);
        thread = t;
        listening = listen;
        subscription = scope.store().subscribe(wake::signal, listen, threadFactory, e -> scope.reporter()
                .error("listen", e));
        t.start();
        log.info(
                "txoutbox: relay '{}' started on table {} (owner {}, batch {}, poll {} ms, lease {} ms)",
                scope.name(),
                scope.store().table(),
                scope.owner(),
                batchSize,
                pollInterval.toMillis(),
                scope.lease().toMillis());
    }

    @Override
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        running = false;
        wake.signal();
        stopping.signal();
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
                        scope.name(),
                        waitMillis);
                t.interrupt();
            }
        }
        try {
            subscription.close();
        } catch (RuntimeException e) {
            scope.reporter().error("listen", e);
        }
        try {
            int released = scope.store().releaseLeases(scope.owner());
            if (released > 0) {
                log.info("txoutbox: relay '{}' returned {} leases", scope.name(), released);
            }
        } catch (RuntimeException e) {
            scope.reporter().error("release", e);
        }
        publisher.shutdown();
        log.info("txoutbox: relay '{}' stopped ({})", scope.name(), metrics());
    }

    /**
     * Claims while there is work; in between, sleeps adaptively: {@code minPollInterval} after a claim
     * that found work, doubling with each empty claim up to {@code pollInterval}, and never past the next
     * delayed event or retry. Any wake-up ends a sleep at once, and one that came while the relay was
     * busy is kept, so none is lost between a claim and the sleep after it. Once the sleep has grown, the
     * relay announces that it is idle; its subscription then wakes it for a last look, so that a row
     * committed while it was going idle is never left for the poll. A failed cycle is reported and
     * followed by a pause that doubles with every failure in a row.
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
                int claimed = claimAndFinish();
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
                scope.reporter().error("claim", e);
                stopListeningIfThePoolIsStarved(e);
                errorPause = nextErrorPause(errorPause);
                wake.await(min(errorPause, pollInterval.multipliedBy(5)));
            }
        }
        if (!pipeline.drain(publishTimeout.plus(Duration.ofSeconds(5)))) {
            log.warn(
                    "txoutbox: relay '{}' stopped with batches still in flight; their leases will decide",
                    scope.name());
        }
    }

    /**
     * Claims a batch and publishes and marks it: on this thread, or with pipelining on a finishing
     * thread while this one goes on to claim the next, once a slot is free.
     *
     * @return how many rows were claimed
     */
    private int claimAndFinish() {
        if (!pipeline.take()) {
            return 0;
        }
        if (!running) {
            // The relay stopped while this thread waited for a slot: claim nothing more.
            pipeline.giveBack();
            return 0;
        }
        RelayCycle.Claimed batch;
        try {
            batch = cycle.claim();
        } catch (RuntimeException | Error e) {
            pipeline.giveBack();
            throw e;
        }
        if (batch == null) {
            pipeline.giveBack();
            return 0;
        }
        pipeline.finish(detach -> cycle.finish(batch, detach));
        return batch.claim().size();
    }

    /** @return the pause after one more failed cycle in a row: 100 ms, then doubling up to 30 s */
    static Duration nextErrorPause(Duration previous) {
        return previous.isZero() ? FIRST_ERROR_PAUSE : min(previous.multipliedBy(2), MAX_ERROR_PAUSE);
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
                scope.name(),
                pollInterval.toMillis());
        try {
            subscription.close();
        } catch (RuntimeException closeFailure) {
            scope.reporter().error("listen", closeFailure);
        }
        announcedIdle = false;
        subscription = scope.store().subscribe(wake::signal, false, threadFactory, err -> scope.reporter()
                .error("listen", err));
    }

    private static boolean isPoolTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException) {
                return true;
            }
        }
        return false;
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
            scope.reporter().error("listen", e);
        }
    }

    /**
     * The adaptive sleep after {@code emptyClaims} claims in a row that found nothing, up to the poll
     * interval, cut short by the next delayed event or retry; never below the minimum, which also keeps
     * a relay from spinning on rows that another relay is claiming.
     */
    Duration idleWait(int emptyClaims) {
        Duration adaptive = min(minPollInterval.multipliedBy(1L << emptyClaims), pollInterval);
        if (adaptive.compareTo(ASK_NEXT_DUE_AFTER) < 0) {
            return adaptive;
        }
        Optional<Instant> due;
        try {
            due = scope.store().nextDueAt();
        } catch (RuntimeException e) {
            scope.reporter().error("claim", e);
            return adaptive;
        }
        if (due.isEmpty()) {
            return adaptive;
        }
        Duration untilDue = Duration.between(scope.clock().instant(), due.get());
        if (untilDue.compareTo(minPollInterval) < 0) {
            return minPollInterval;
        }
        return min(untilDue, adaptive);
    }

    @Override
    public int runOnce() {
        return cycle.run();
    }

    private void purgeIfDue() {
        if (retainPublished == null) {
            return;
        }
        Instant now = scope.clock().instant();
        if (lastPurge != Instant.MIN && Duration.between(lastPurge, now).compareTo(purgeInterval) < 0) {
            return;
        }
        lastPurge = now;
        try {
            int purged = scope.store().purgePublished(now.minus(retainPublished), purgeBatchSize);
            if (purged > 0) {
                log.debug("txoutbox: relay '{}' purged {} published rows", scope.name(), purged);
            }
        } catch (RuntimeException e) {
            scope.reporter().error("purge", e);
        }
    }

    static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public void pause() {
        paused = true;
        log.info("txoutbox: relay '{}' paused", scope.name());
    }

    @Override
    public void resume() {
        paused = false;
        wake.signal();
        log.info("txoutbox: relay '{}' resumed", scope.name());
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
        return scope.name();
    }

    @Override
    public String owner() {
        return scope.owner();
    }

    @Override
    public RelayMetrics metrics() {
        return scope.reporter().metrics();
    }

    @Override
    public String toString() {
        return "Relay[name=" + scope.name() + ", table=" + scope.store().table() + ", owner=" + scope.owner() + "]";
    }
}
