package io.txoutbox.internal.transport;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * A publisher's own threads and its closed state: a cached pool of daemon threads named {@code
 * txoutbox-<transport>-<instance>-<n>}, batches run on it until {@link #close(Duration)}, then refused
 * with {@code "<publisher> is closed"}. Thread-safe.
 */
public final class PublisherThreads {
    private static final Map<String, AtomicInteger> INSTANCES = new ConcurrentHashMap<>();

    private final String description;
    private final ExecutorService executor;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param transport the transport's short name in the thread names, for example {@code nats}
     * @param description the publisher's {@code toString()}, which the "is closed" failures name
     */
    public PublisherThreads(String transport, String description) {
        this.description = description;
        this.executor = Executors.newCachedThreadPool(daemonThreads(prefix(transport)));
    }

    /**
     * @param transport the transport's short name, for example {@code jms}
     * @return {@code txoutbox-<transport>-<instance>-}, the instance counted per transport from 1
     */
    public static String prefix(String transport) {
        int instance =
                INSTANCES.computeIfAbsent(transport, t -> new AtomicInteger()).incrementAndGet();
        return "txoutbox-" + transport + "-" + instance + "-";
    }

    /**
     * @param prefix the threads' name before their number, counted from 1
     * @return a factory of daemon threads named {@code <prefix><n>}
     */
    public static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger threads = new AtomicInteger();
        return r -> daemon(r, prefix + threads.incrementAndGet());
    }

    /**
     * @param task what the thread runs
     * @param name the thread's name
     * @return a daemon thread, not started: a relay's transport never keeps the JVM alive
     */
    public static Thread daemon(Runnable task, String name) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Runs a batch on these threads.
     *
     * @param work the batch's publishing, which reports its failures as outcomes
     * @param <T> what the work gives
     * @return its result; a stage failed with {@link IllegalStateException} once closed
     */
    public <T> CompletionStage<T> submit(Supplier<T> work) {
        try {
            return start(work);
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Like {@link #submit(Supplier)}, for a caller that goes on with the stage.
     *
     * @param work the batch's publishing
     * @param <T> what the work gives
     * @return its result, to come
     * @throws IllegalStateException once closed
     */
    public <T> CompletableFuture<T> start(Supplier<T> work) {
        if (closed.get()) {
            throw closedFailure(null);
        }
        try {
            return CompletableFuture.supplyAsync(work, executor);
        } catch (RejectedExecutionException e) {
            throw closedFailure(e);
        }
    }

    /**
     * @param cause what refused the work, or {@code null}
     * @return {@code IllegalStateException("<publisher> is closed")}
     */
    public IllegalStateException closedFailure(Throwable cause) {
        return new IllegalStateException(description + " is closed", cause);
    }

    /**
     * @param task a task of the publisher's own (connecting early, closing a channel)
     * @throws RejectedExecutionException once closed
     */
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /**
     * Like {@link #execute(Runnable)}, for a task that closing makes needless.
     *
     * @param task the task
     * @return whether it was taken; {@code false} once closed
     */
    public boolean executeUnlessClosed(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** @return whether {@link #markClosed()} or {@link #close(Duration)} has been called */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Refuses batches from now on, without waiting for those in flight.
     *
     * @return {@code true} for the first call only, which must then call {@link #shutDown(Duration)}
     */
    public boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /**
     * {@link #markClosed()} while holding {@code lock}, the lock under which the publisher checks {@link
     * #isClosed()} before it opens a connection: once this returns, no batch opens one.
     *
     * @param lock the lock that guards the publisher's connection
     * @return {@code true} for the first call only, which must then call {@link #shutDown(Duration)}
     */
    public boolean markClosed(Lock lock) {
        lock.lock();
        try {
            return markClosed();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Lets the batches in flight finish for at most {@code wait}, then interrupts them. An interrupt of
     * the caller interrupts them at once and stays set.
     *
     * @param wait how long the batches in flight may take
     */
    public void shutDown(Duration wait) {
        stop(executor, wait);
    }

    /**
     * Shuts an executor down: lets its tasks finish for at most {@code wait}, then interrupts them. An
     * interrupt of the caller interrupts them at once and stays set.
     *
     * @param executor an executor the publisher created
     * @param wait how long its tasks may take
     * @return whether it ended within {@code wait}
     */
    public static boolean stop(ExecutorService executor, Duration wait) {
        executor.shutdown();
        try {
            if (executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
        return false;
    }

    /**
     * {@link #markClosed()}, then {@link #shutDown(Duration)} on the first call. Idempotent.
     *
     * @param wait how long the batches in flight may take
     * @return {@code true} for the call that closed, {@code false} when already closed
     */
    public boolean close(Duration wait) {
        if (!markClosed()) {
            return false;
        }
        shutDown(wait);
        return true;
    }
}
