package io.txoutbox.relay;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The batches a pipelining relay has in flight: while the broker confirms one batch, the relay thread
 * claims the next, up to {@code maxInFlightBatches} claimed and not yet marked. The relay takes a slot
 * before it claims (so a claimed batch never waits for one while its lease runs), and the batch's
 * publish and mark return it. Ordered mode keeps its guarantee without help: a claim takes only the
 * head of each aggregate, and an aggregate whose head is in flight has no head to claim until its mark.
 *
 * <p>A batch whose publisher confirmed and marked part of it while the rest is still out (one slow
 * route among fast ones) may <em>detach</em>: it gives its slot back early, so that the relay claims the
 * next batch instead of holding the fast routes to the slow one's pace. At most {@link #MAX_DETACHED}
 * batches are detached at once; beyond that a batch keeps its slot until it is marked, which slows the
 * relay to the slow route's pace rather than let its work pile up. A detached batch stays within the
 * publish timeout and keeps its lease like any other.
 *
 * <p>Batches are finished on finishing threads, so that the relay thread can go on claiming when a
 * batch detaches; with one slot ({@code maxInFlightBatches(1)}) the relay thread still waits for each batch to be marked
 * (or detached) before it claims the next.
 */
final class Pipeline {
    /** Batches of one relay that may be detached at once (each holds a finishing thread while out). */
    static final int MAX_DETACHED = 32;

    private final int slots;
    private final Semaphore free;
    private final Semaphore detachable = new Semaphore(MAX_DETACHED);
    private final ThreadPoolExecutor finishers;
    private final Consumer<Throwable> failures;

    /**
     * @param maxInFlightBatches batches claimed and not yet marked at once, 1 or more
     * @param threads where the finishing threads come from
     * @param failures told what a batch's finishing thread threw (a finish reports its own failures; this
     *     is for what escapes it)
     */
    Pipeline(int maxInFlightBatches, ThreadFactory threads, Consumer<Throwable> failures) {
        this.slots = maxInFlightBatches;
        this.free = new Semaphore(maxInFlightBatches);
        this.failures = failures;
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                0, 2 * maxInFlightBatches + MAX_DETACHED, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
        this.finishers = pool;
    }

    /**
     * Waits for a free slot.
     *
     * @return whether one was taken (not when interrupted)
     */
    boolean take() {
        try {
            free.acquire();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Returns a slot taken for a claim that found nothing or failed. */
    void giveBack() {
        free.release();
    }

    /**
     * Finishes a claimed batch on a finishing thread; the slot taken for its claim is returned after, or
     * when the batch detaches.
     *
     * @param publishAndMark publishes and marks the batch; the runnable it is given detaches the batch
     *     (returns its slot early) when a detached place is free, and does nothing otherwise or again
     */
    void finish(Consumer<Runnable> publishAndMark) {
        AtomicBoolean detached = new AtomicBoolean();
        Runnable detach = () -> {
            if (!detached.get() && detachable.tryAcquire()) {
                detached.set(true);
                free.release();
            }
        };
        Runnable task = () -> {
            try {
                publishAndMark.accept(detach);
            } catch (RuntimeException | Error e) {
                failures.accept(e);
            } finally {
                if (detached.get()) {
                    detachable.release();
                } else {
                    free.release();
                }
            }
        };
        try {
            finishers.execute(task);
        } catch (RejectedExecutionException e) {
            // Every finishing thread is busy (cannot be: slots and detached places bound them) or the relay
            // is stopping: finish here rather than leave the batch to its lease.
            task.run();
        }
    }

    /** @return batches detached: partly marked, the rest still out */
    int detached() {
        return MAX_DETACHED - detachable.availablePermits();
    }

    /** @return batches claimed and not yet marked */
    int inFlight() {
        return slots - free.availablePermits();
    }

    /**
     * Waits until every batch in flight is marked (or its lease is left to decide), then lets the threads
     * end.
     *
     * @return whether all finished within the timeout
     */
    boolean drain(Duration timeout) {
        ThreadPoolExecutor pool = finishers;
        pool.shutdown();
        try {
            return pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
