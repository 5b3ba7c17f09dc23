package io.txoutbox.relay;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The batches a pipelining relay has in flight: while the broker confirms one batch, the relay thread
 * claims the next, up to {@code maxInFlightBatches} claimed and not yet marked. The relay takes a slot
 * before it claims (so a claimed batch never waits for one while its lease runs), and the batch's
 * publish and mark return it. Ordered mode keeps its guarantee without help: a claim takes only the
 * head of each aggregate, and an aggregate whose head is in flight has no head to claim until its mark.
 *
 * <p>With one slot ({@code maxInFlightBatches(1)}) there is no pipeline: the relay thread publishes and marks each batch
 * itself before it claims the next, and what fails there reaches the relay's loop as before.
 */
final class Pipeline {
    private final int slots;
    private final Semaphore free;
    private final Executor finishers;
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
        if (maxInFlightBatches == 1) {
            this.finishers = Runnable::run;
        } else {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(
                    maxInFlightBatches, maxInFlightBatches, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
            pool.allowCoreThreadTimeOut(true);
            this.finishers = pool;
        }
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

    /** Finishes a claimed batch on a finishing thread; the slot taken for its claim is returned after. */
    void finish(Runnable publishAndMark) {
        if (slots == 1) {
            try {
                publishAndMark.run();
            } finally {
                free.release();
            }
            return;
        }
        finishers.execute(() -> {
            try {
                publishAndMark.run();
            } catch (RuntimeException | Error e) {
                failures.accept(e);
            } finally {
                free.release();
            }
        });
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
        if (!(finishers instanceof ThreadPoolExecutor pool)) {
            return true;
        }
        pool.shutdown();
        try {
            return pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
