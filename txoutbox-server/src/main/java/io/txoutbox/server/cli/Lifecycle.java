package io.txoutbox.server.cli;

import io.txoutbox.server.yaml.ConfigException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps {@code run} and {@code demo} alive until SIGTERM, Ctrl-C or the end of {@code --duration}, then
 * stops them cleanly: relays finish the batch in flight and return their leases before the process
 * ends.
 *
 * <p>On a signal the JVM runs shutdown hooks and would then exit with 143 (or 130), which tells a
 * supervisor the process died. The hook here stops everything first and then ends the process itself
 * with 0 when the stop was clean, 1 when it was not, so scripts and supervisors can tell the two apart.
 */
public final class Lifecycle {
    private Lifecycle() {}

    /**
     * @param running what to stop
     * @param duration how long to run, or {@code null} until a signal
     * @param out where to say that it stops
     * @return 0 after a clean stop at the end of the duration, 1 when the stop failed (a signal ends the
     *     process from the hook instead)
     */
    public static int runUntilStopped(AutoCloseable running, Duration duration, PrintWriter out)
            throws InterruptedException {
        return runUntilStopped(running, duration, out, new CompletableFuture<>());
    }

    /**
     * As {@link #runUntilStopped(AutoCloseable, Duration, PrintWriter)}, and stops early when {@code
     * failure} completes (a source found its configuration wrong after waiting for its database).
     *
     * @param failure completes with the reason the server cannot go on
     * @return as above; 2 after a stop caused by a configuration error
     */
    public static int runUntilStopped(
            AutoCloseable running, Duration duration, PrintWriter out, CompletableFuture<? extends Exception> failure)
            throws InterruptedException {
        AtomicBoolean stopping = new AtomicBoolean();
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        failure.whenComplete((e, t) -> wake.countDown());
        Thread hook = new Thread(
                () -> {
                    if (!stopping.compareAndSet(false, true)) {
                        return;
                    }
                    out.println("txoutbox: stopping (finishing the batch in flight, returning leases)...");
                    boolean clean = stop(running, out);
                    out.println(clean ? "txoutbox: stopped cleanly" : "txoutbox: stopped with errors");
                    out.flush();
                    System.err.flush();
                    Runtime.getRuntime().halt(clean ? 0 : 1);
                },
                "txoutbox-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (duration == null) {
            wake.await();
        } else {
            wake.await(duration.toMillis(), TimeUnit.MILLISECONDS);
        }
        if (!stopping.compareAndSet(false, true)) {
            // A signal came in the meantime: the hook stops everything and ends the process.
            never.await();
        }
        Runtime.getRuntime().removeShutdownHook(hook);
        if (failure.isDone()) {
            Exception e = failure.getNow(null);
            out.println("txoutbox: " + (e instanceof ConfigException ? "configuration error: " : "")
                    + (e == null ? "failed" : e.getMessage()) + "; stopping...");
            stop(running, out);
            out.println("txoutbox: stopped");
            return e instanceof ConfigException ? TxoutboxCli.USAGE : TxoutboxCli.FAILURE;
        }
        out.println("txoutbox: --duration " + duration.toSeconds() + "s is over; stopping...");
        boolean clean = stop(running, out);
        out.println(clean ? "txoutbox: stopped cleanly" : "txoutbox: stopped with errors");
        return clean ? 0 : 1;
    }

    private static boolean stop(AutoCloseable running, PrintWriter out) {
        try {
            running.close();
            return true;
        } catch (Exception e) {
            out.println("txoutbox: stop failed: " + e);
            return false;
        }
    }
}
