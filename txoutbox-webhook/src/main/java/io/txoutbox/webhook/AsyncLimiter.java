package io.txoutbox.webhook;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Runs at most {@code limit} asynchronous operations at once; the others wait in a queue, in order.
 * Never blocks the caller: a queued operation starts when a running one completes.
 */
final class AsyncLimiter {
    private final int limit;
    private final Executor executor;
    private final ReentrantLock lock = new ReentrantLock();
    private final Queue<Runnable> waiting = new ArrayDeque<>();
    private int running;

    /**
     * @param limit how many operations may run at once
     * @param executor starts a queued operation when a slot frees, so that operations completing at once
     *     cannot recurse through the queue on one stack
     */
    AsyncLimiter(int limit, Executor executor) {
        this.limit = limit;
        this.executor = executor;
    }

    /**
     * @param operation starts the operation; it must not throw (a throw completes the result exceptionally)
     * @return the operation's result, once a slot was free and it completed
     */
    <T> CompletableFuture<T> submit(Supplier<CompletableFuture<T>> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable start = () -> {
            CompletableFuture<T> started;
            try {
                started = operation.get();
            } catch (RuntimeException e) {
                started = CompletableFuture.failedFuture(e);
            }
            started.whenComplete((value, error) -> {
                release();
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(value);
                }
            });
        };
        boolean now;
        lock.lock();
        try {
            now = running < limit;
            if (now) {
                running++;
            } else {
                waiting.add(start);
            }
        } finally {
            lock.unlock();
        }
        if (now) {
            start.run();
        }
        return result;
    }

    private void release() {
        Runnable next;
        lock.lock();
        try {
            next = waiting.poll();
            if (next == null) {
                running--;
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            // The slot passes straight to the next operation.
            try {
                executor.execute(next);
            } catch (RejectedExecutionException e) {
                // The executor is shut down (the publisher is closing): finish the queue here.
                next.run();
            }
        }
    }
}
