package io.txoutbox.harness.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load: each of N threads runs one piece of work after another, as fast as it completes,
 * for a warm-up and then a measured time. What it measures is the rate at which the work completes
 * (transactions per second, say), with the threads as the only limit on concurrency. The benchmark
 * harness and the change-data-capture benchmark measure their append workloads with it.
 */
public final class ClosedLoop {
    private ClosedLoop() {}

    /** One unit of work; a thrown exception stops the loop and is rethrown by {@link #perSecond}. */
    @FunctionalInterface
    public interface Work {
        /**
         * @throws Exception on failure: the run stops and {@link #perSecond} rethrows the first one
         */
        void run() throws Exception;
    }

    /**
     * Runs {@code work} on {@code threads} threads for {@code warmUp} plus {@code measured}, counting only
     * the completions that started after the warm-up.
     *
     * @param threads how many threads run the work at once, at least 1
     * @param warmUp how long the work runs before completions count, zero or more
     * @param measured how long completions count, more than zero
     * @param work what each thread runs again and again
     * @return completions per second of the measured time
     * @throws Exception the first exception any thread's work threw
     */
    public static double perSecond(int threads, Duration warmUp, Duration measured, Work work) throws Exception {
        if (threads < 1) {
            throw new IllegalArgumentException("ClosedLoop.threads is " + threads + "; it must be at least 1");
        }
        if (warmUp.isNegative()) {
            throw new IllegalArgumentException("ClosedLoop.warmUp is " + warmUp + "; it must not be negative");
        }
        if (measured.isNegative() || measured.isZero()) {
            throw new IllegalArgumentException("ClosedLoop.measured is " + measured + "; it must be positive");
        }
        long warmEnd = System.nanoTime() + warmUp.toNanos();
        long end = warmEnd + measured.toNanos();
        AtomicLong done = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> list = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(
                    () -> {
                        try {
                            long now;
                            while (failure.get() == null && (now = System.nanoTime()) < end) {
                                work.run();
                                if (now >= warmEnd) {
                                    done.incrementAndGet();
                                }
                            }
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "closed-loop-" + i);
            list.add(t);
            t.start();
        }
        for (Thread t : list) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return done.get() / (measured.toNanos() / 1e9);
    }
}
