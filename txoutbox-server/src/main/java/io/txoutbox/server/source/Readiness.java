package io.txoutbox.server.source;

import io.txoutbox.internal.admin.DatabaseFailure;
import io.txoutbox.spi.RelayListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * Whether a source's database answers, as its relays last saw it, for {@code /ready}: answering reads
 * this state and never the database, so a flood of unauthenticated {@code /ready} requests cannot take
 * the relays' connections.
 *
 * <p>The relays report as they work: every batch they mark is a database that answers, every failed
 * claim or mark one that does not. An idle or paused relay reports nothing, so while the last report is
 * older than {@link #FRESH}, one background check a second at most borrows a connection and validates
 * it: one round trip per {@code FRESH} whatever the number of requests. A last report older than {@link
 * #STALE} (a check that hangs) is not ready.
 */
final class Readiness implements RelayListener {
    /** A report this recent needs no check of the database. */
    static final Duration FRESH = Duration.ofSeconds(5);

    /** A report older than this is no evidence: not ready. */
    static final Duration STALE = Duration.ofSeconds(15);

    /** What was seen last, and when ({@link System#nanoTime()}). */
    private record Report(long atNanos, boolean answers, String problem) {}

    private final String source;
    private final LongSupplier nanoTime;
    private final AtomicLong checks = new AtomicLong();
    private volatile Report last;
    private ScheduledExecutorService checker;

    /**
     * @param source the source's name, for the checker thread's name
     * @param nanoTime the monotonic clock ({@link System#nanoTime()})
     */
    Readiness(String source, LongSupplier nanoTime) {
        this.source = source;
        this.nanoTime = nanoTime;
    }

    /**
     * The source connected: its database answered just now. From now on the database is checked in the
     * background whenever the relays have not reported for {@link #FRESH}.
     *
     * @param pool the source's pool, which the checks borrow one connection of
     */
    synchronized void start(DataSource pool) {
        answered();
        if (checker != null) {
            return;
        }
        checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "txoutbox-ready-" + source);
            t.setDaemon(true);
            return t;
        });
        try {
            checker.scheduleWithFixedDelay(() -> checkIfNotFresh(pool), 1, 1, TimeUnit.SECONDS);
        } catch (RejectedExecutionException stopping) {
            // Closed meanwhile.
        }
    }

    /** Stops the background checks; idempotent. */
    synchronized void stop() {
        if (checker != null) {
            checker.shutdownNow();
            checker = null;
        }
        last = null;
    }

    @Override
    public void onBatch(BatchReport report) {
        answered();
    }

    @Override
    public void onError(String relay, String phase, Throwable error) {
        if (phase.equals("claim") || phase.equals("complete")) {
            failed("the relay's last " + phase + " failed (" + what(error) + ")");
        }
    }

    /** @return whether the last report is that the database answers, and is at most {@link #STALE} old */
    boolean databaseAnswers() {
        Report r = last;
        return r != null && r.answers() && nanoTime.getAsLong() - r.atNanos() <= STALE.toNanos();
    }

    /** @return why {@link #databaseAnswers()} is false (no database text: {@code /ready} has no token) */
    String problem() {
        Report r = last;
        if (r == null) {
            return "not connected";
        }
        if (!r.answers()) {
            return r.problem();
        }
        return "no sign of the database for more than " + STALE.toSeconds() + " s";
    }

    /** @return how many times the background check borrowed a connection */
    long checks() {
        return checks.get();
    }

    private void checkIfNotFresh(DataSource pool) {
        Report r = last;
        if (r != null && nanoTime.getAsLong() - r.atNanos() < FRESH.toNanos()) {
            return;
        }
        checks.incrementAndGet();
        try (Connection c = pool.getConnection()) {
            if (c.isValid((int) Math.max(1, FRESH.toSeconds()))) {
                answered();
            } else {
                failed("a connection of the pool did not validate");
            }
        } catch (SQLException | RuntimeException e) {
            failed("the database check failed (" + what(e) + ")");
        }
    }

    private void answered() {
        last = new Report(nanoTime.getAsLong(), true, null);
    }

    private void failed(String problem) {
        last = new Report(nanoTime.getAsLong(), false, problem);
    }

    /** @return the SQLState, or the exception's class: never a driver's message, which may quote a URL */
    private static String what(Throwable e) {
        String state = DatabaseFailure.sqlState(e);
        return state != null ? "SQLState " + state : e.getClass().getSimpleName();
    }
}
