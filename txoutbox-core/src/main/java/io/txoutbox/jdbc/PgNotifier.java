package io.txoutbox.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes relays in other processes after an appending transaction committed: one {@code pg_notify} on a
 * connection of its own, outside every business transaction, at most one per coalescing window.
 *
 * <p>{@link #request()} is all the committing thread does: it sets a flag and, when the flag was clear,
 * unparks the notifier's thread. It never blocks, never touches the database and never throws. The
 * thread sends at once (so the first commit after a quiet spell is not delayed), then waits out the
 * window and sends once more if anything was requested meanwhile. Under a sustained stream of commits
 * (at least one per millisecond over a window) the window widens, doubling per window up to
 * {@link #WIDE_WINDOW} (or the configured window when that is longer), and narrows again, halving, when
 * the stream thins; a window without a request resets it. Each notification is a transaction of its
 * own (a round trip, a transaction id, a commit record) on a machine that the commits keep busy: at a
 * fixed 2 ms they cost saturated appends on two cores several percent against the same rows by hand
 * (BENCHMARKS.md W1), and the wider window showed no latency cost for a relay in another process
 * (W2 runs alternating with the fixed window: the README's table of issue #25). It borrows its
 * connection from the data source on the first request and keeps it only while requests keep
 * coming: when a whole window passes without one, the connection goes back to the pool, so a small
 * pool is never held up for longer than one window. Its {@code application_name} is {@code txoutbox-notify:<channel>} while it
 * holds it.
 *
 * <p>A request may carry a hint, where the committed transaction's rows sit (see {@link PgWakeups}); a
 * notification carries the lowest hint of the requests it answers, or none when one of them had none
 * and no other had one.
 *
 * <p>A failure (a terminated backend, a restart, a pool that cannot lend a connection) is counted and
 * logged once until a notification goes through again; the request is kept and retried with a bounded
 * backoff. Relays poll anyway, so a lost notification only delays an event until their next poll.
 */
final class PgNotifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgNotifier.class);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** How wide the window grows under a sustained stream of commits, unless configured wider. */
    static final Duration WIDE_WINDOW = Duration.ofMillis(10);

    /** A notifier that never notifies: for databases without notifications, or with them turned off. */
    static final PgNotifier NONE = new PgNotifier(null, "", Duration.ZERO, null, false);

    private final DataSource dataSource;
    private final boolean enabled;
    private final String channel;
    private final long windowNanos;
    private final ThreadFactory threadFactory;
    private final AtomicBoolean pending = new AtomicBoolean();
    /** The lowest hint of the requests since the last notification, or {@code null}. */
    private final AtomicReference<Instant> hint = new AtomicReference<>();

    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong requested = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean closed;
    /** Whether the thread waits for a request (not out a window): only then does a request unpark it. */
    private volatile boolean idle;

    private volatile Thread thread;
    private Connection connection;
    private boolean failing;

    PgNotifier(DataSource dataSource, String channel, Duration window, ThreadFactory threadFactory) {
        this(dataSource, channel, window, threadFactory, true);
    }

    private PgNotifier(
            DataSource dataSource, String channel, Duration window, ThreadFactory threadFactory, boolean enabled) {
        this.dataSource = dataSource;
        this.enabled = enabled;
        this.channel = channel;
        this.windowNanos = window.toNanos();
        this.threadFactory = threadFactory;
    }

    /** Asks for a notification soon; returns at once. */
    void request() {
        request(null);
    }

    /**
     * Asks for a notification soon; returns at once.
     *
     * @param availableAt where the committed transaction's rows sit, or {@code null}
     */
    void request(Instant availableAt) {
        if (!enabled) {
            return;
        }
        requested.incrementAndGet();
        if (availableAt != null) {
            hint.accumulateAndGet(availableAt, (a, b) -> a == null || b.isBefore(a) ? b : a);
        }
        if (closed || pending.get() || !pending.compareAndSet(false, true)) {
            return;
        }
        Thread t = thread;
        if (t == null) {
            t = start();
        }
        // While the thread waits out a window it sends when the window ends anyway: waking it early would
        // cost a context switch on each side for nothing. Written and read in the opposite order to the
        // thread's (idle, then pending), so one of the two always sees the other.
        if (idle) {
            LockSupport.unpark(t);
        }
    }

    private Thread start() {
        if (started.compareAndSet(false, true)) {
            Thread t = threadFactory.newThread(this::run);
            thread = t;
            t.start();
            return t;
        }
        Thread t;
        while ((t = thread) == null) {
            Thread.onSpinWait();
        }
        return t;
    }

    /** @return notifications sent */
    long sent() {
        return sent.get();
    }

    /** @return how often a notification was asked for (every commit that called it) */
    long requested() {
        return requested.get();
    }

    /** @return failed attempts to notify (each retried) */
    long failures() {
        return failures.get();
    }

    private void run() {
        long backoff = FIRST_BACKOFF_NANOS;
        long window = windowNanos;
        while (!closed) {
            if (!pending.get()) {
                // A whole window without a request: give the connection back, then wait for one.
                window = windowNanos;
                release();
                idle = true;
                while (!closed && !pending.get()) {
                    LockSupport.park(this);
                }
                idle = false;
                if (closed) {
                    break;
                }
            }
            pending.set(false);
            long sentAt = System.nanoTime();
            long requestedBefore = requested.get();
            if (send()) {
                backoff = FIRST_BACKOFF_NANOS;
                pauseUntil(sentAt + window);
                window = nextWindow(windowNanos, window, requested.get() - requestedBefore, System.nanoTime() - sentAt);
            } else {
                pending.set(true);
                pauseUntil(System.nanoTime() + backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            }
        }
        release();
    }

    /**
     * The width of the next window, from how the last one went.
     *
     * @param configured the configured window, in nanoseconds: the narrowest (and, when 0, the only) one
     * @param current the window that just ended
     * @param requests requests made during it
     * @param elapsedNanos how long it lasted
     * @return twice {@code current} (at most {@link #WIDE_WINDOW}, or {@code configured} when wider) when
     *     the requests came at least one per millisecond, else half of it (at least {@code configured});
     *     {@code configured} when none came
     */
    static long nextWindow(long configured, long current, long requests, long elapsedNanos) {
        if (configured == 0 || requests == 0) {
            return configured;
        }
        if (requests * TimeUnit.MILLISECONDS.toNanos(1) >= elapsedNanos) {
            return Math.min(current * 2, Math.max(configured, WIDE_WINDOW.toNanos()));
        }
        return Math.max(current / 2, configured);
    }

    private boolean send() {
        try {
            if (connection == null) {
                connection = dataSource.getConnection();
                connection.setAutoCommit(true);
                try (Statement st = connection.createStatement()) {
                    st.execute(PgWakeups.setApplicationName(applicationName(channel)));
                }
            }
            Instant hinted = hint.getAndSet(null);
            try (PreparedStatement ps = connection.prepareStatement(PgWakeups.NOTIFY)) {
                ps.setString(1, channel);
                ps.setString(2, PgWakeups.formatHint(hinted));
                ps.execute();
            } catch (SQLException | RuntimeException e) {
                if (hinted != null) {
                    hint.accumulateAndGet(hinted, (a, b) -> a == null || b.isBefore(a) ? b : a);
                }
                throw e;
            }
            sent.incrementAndGet();
            if (failing) {
                failing = false;
                log.info("txoutbox: after-commit notifications on {} work again", channel);
            }
            return true;
        } catch (SQLException | RuntimeException e) {
            failures.incrementAndGet();
            if (!failing) {
                failing = true;
                log.warn(
                        "txoutbox: an after-commit notification on {} failed ({}); retrying with backoff, relays in"
                                + " other processes poll meanwhile (logged once until it works again)",
                        channel,
                        e.getMessage());
            } else {
                log.debug("txoutbox: an after-commit notification on {} failed again", channel, e);
            }
            discard();
            return false;
        }
    }

    /** Gives the connection back to the pool as it was lent. */
    private void release() {
        Connection c = connection;
        if (c == null) {
            return;
        }
        connection = null;
        try (Statement st = c.createStatement()) {
            st.execute(PgWakeups.RESET_APPLICATION_NAME);
        } catch (SQLException e) {
            log.debug("txoutbox: resetting the notifier connection of {} failed", channel, e);
        }
        closeQuietly(c);
    }

    /** A broken connection: close it so the pool sees the failure, and borrow a new one next time. */
    private void discard() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            closeQuietly(c);
        }
    }

    private void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("txoutbox: closing the notifier connection of {} failed", channel, e);
        }
    }

    private void pauseUntil(long deadline) {
        long left;
        while (!closed && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    static String applicationName(String channel) {
        String name = "txoutbox-notify:" + channel;
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    /** Stops the thread (after the notification in progress, if any) and gives the connection back. */
    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            log.warn("txoutbox: the notifier thread of {} did not stop within 5 s", channel);
        }
    }
}
