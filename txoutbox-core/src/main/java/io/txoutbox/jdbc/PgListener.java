package io.txoutbox.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that {@code LISTEN}s on the table's channel and wakes the relay on every
 * notification. When the connection breaks (a restart, {@code pg_terminate_backend}, a network cut) it
 * reconnects with a bounded backoff, listens again, and wakes the relay once so that nothing committed
 * while it was away waits for the next poll. A periodic round trip notices a connection that died
 * silently. The connection's {@code application_name} is {@code txoutbox-listen:<channel>}.
 *
 * <p>A notification whose payload is a hint ({@link PgWakeups#parseHint}) passes it to the claims before it
 * wakes the relay, so the relay's next claim looks behind its cursor where the committed rows sit; any
 * other payload is a plain wake-up.
 *
 * <p>The same connection announces the relay's idleness to writers that are not txoutbox (see {@link
 * PgWakeups}): when the relay says it is {@link #idle() idle}, the listener takes the table's idle lock,
 * waits for writers that checked before it to finish their commits, and then wakes the relay for a last
 * look before it sleeps; when the relay says it is {@link #busy() busy} again, it lets the lock go. After
 * a reconnect it announces again what the relay last said.
 */
final class PgListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgListener.class);
    /** How long one wait for notifications lasts: also how soon a change of idleness takes effect. */
    private static final int WAIT_MILLIS = 25;
    /** The longest the announcement waits for writers in the middle of their commit, per try. */
    private static final String LOCK_TIMEOUT = "2s";
    /** How long close waits for the thread: longer than one announcement can take. */
    private static final long STOP_WAIT_MILLIS = 3_000;

    private static final long HEALTH_CHECK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    private final DataSource dataSource;
    private final String channel;
    private final Runnable wake;
    private final Consumer<Instant> hints;
    private final Consumer<Throwable> onError;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopped = lock.newCondition();
    private final int key;
    private volatile boolean closed;
    private volatile boolean listening;
    /** What the relay last said: idle (announce it) or busy. */
    private volatile boolean wantIdle;
    /** Whether this connection holds the idle lock now; the listener thread's own. */
    private boolean idleHeld;
    /** Whether writers that checked before the announcement may still be committing. */
    private boolean drainPending;

    private PgListener(
            DataSource dataSource,
            String channel,
            Runnable wake,
            Consumer<Instant> hints,
            ThreadFactory threadFactory,
            Consumer<Throwable> onError) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wake = wake;
        this.hints = hints;
        this.onError = onError;
        this.key = PgWakeups.key(channel);
        this.thread = threadFactory.newThread(this::run);
    }

    /**
     * @param hints takes the hints that notifications carry, before the relay is woken
     * @return a started listener, or {@code null} when the PostgreSQL driver is not on the class path
     */
    static PgListener startIfAvailable(
            DataSource dataSource,
            String channel,
            Runnable wake,
            Consumer<Instant> hints,
            ThreadFactory tf,
            Consumer<Throwable> onError) {
        try {
            Class.forName("org.postgresql.PGConnection", false, PgListener.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            log.warn("txoutbox: the PostgreSQL driver is not on the class path; relays of {} poll only", channel);
            return null;
        }
        PgListener listener = new PgListener(dataSource, channel, wake, hints, tf, onError);
        listener.thread.start();
        return listener;
    }

    static String applicationName(String channel) {
        String name = "txoutbox-listen:" + channel;
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    boolean isListening() {
        return listening;
    }

    /** The relay has nothing to do: announce it, then wake the relay once the announcement holds. */
    void idle() {
        wantIdle = true;
    }

    /** The relay has work: writers need not wake it. */
    void busy() {
        wantIdle = false;
    }

    private void run() {
        long backoff = 100;
        while (!closed) {
            Connection c = null;
            try {
                c = dataSource.getConnection();
                c.setAutoCommit(true);
                PGConnection pg = c.unwrap(PGConnection.class);
                try (Statement st = c.createStatement()) {
                    st.execute(PgWakeups.setApplicationName(applicationName(channel)));
                    st.execute(PgWakeups.setLockTimeout(LOCK_TIMEOUT));
                    st.execute(PgWakeups.listen(channel));
                }
                idleHeld = false;
                drainPending = false;
                listening = true;
                backoff = 100;
                log.debug("txoutbox: listening on {}", channel);
                wake.run();
                listen(c, pg);
                try (Statement st = c.createStatement()) {
                    if (idleHeld) {
                        st.execute(unlockIdle());
                        idleHeld = false;
                    }
                    st.execute(PgWakeups.unlisten(channel));
                    st.execute(PgWakeups.RESET_LOCK_TIMEOUT);
                    st.execute(PgWakeups.RESET_APPLICATION_NAME);
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (c != null) {
                    letThePoolSeeTheFailure(c);
                }
                if (closed) {
                    break;
                }
                log.warn(
                        "txoutbox: the LISTEN connection for {} failed ({}); reconnecting in {} ms, polling meanwhile",
                        channel,
                        e.getMessage(),
                        backoff);
                onError.accept(e);
                pause(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            } finally {
                closeQuietly(c);
            }
        }
        listening = false;
        lock.lock();
        try {
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The failure came through the driver's own connection (unwrapped for notifications), which a pool
     * does not watch: one statement through the pool's connection lets it notice the broken connection
     * and evict it instead of lending it out again.
     */
    private static void letThePoolSeeTheFailure(Connection c) {
        try (Statement st = c.createStatement()) {
            st.execute(PgWakeups.PING);
        } catch (SQLException | RuntimeException expected) {
            log.trace("txoutbox: the LISTEN connection is broken, as expected", expected);
        }
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("txoutbox: closing the LISTEN connection failed", e);
        }
    }

    private void listen(Connection c, PGConnection pg) throws SQLException {
        long lastCheck = System.nanoTime();
        while (!closed) {
            announce(c);
            PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
            if (notifications != null && notifications.length > 0) {
                hint(notifications);
                wake.run();
            }
            if (System.nanoTime() - lastCheck > HEALTH_CHECK_NANOS) {
                try (Statement st = c.createStatement()) {
                    st.execute(PgWakeups.PING);
                }
                lastCheck = System.nanoTime();
            }
        }
    }

    /** Passes the lowest hint of the notifications on; a payload that is no hint is a plain wake-up. */
    private void hint(PGNotification[] notifications) {
        Instant lowest = null;
        for (PGNotification n : notifications) {
            Instant at = PgWakeups.parseHint(n.getParameter());
            if (at != null && (lowest == null || at.isBefore(lowest))) {
                lowest = at;
            }
        }
        if (lowest != null) {
            hints.accept(lowest);
        }
    }

    /** Brings the connection's idle lock in line with what the relay last said. */
    private void announce(Connection c) throws SQLException {
        boolean idle = wantIdle;
        if (idle && !idleHeld) {
            try (Statement st = c.createStatement()) {
                st.execute(PgWakeups.lockIdle(key));
            }
            idleHeld = true;
            drainPending = true;
        } else if (!idle && idleHeld) {
            try (Statement st = c.createStatement()) {
                st.execute(unlockIdle());
            }
            idleHeld = false;
            drainPending = false;
        }
        if (idleHeld && drainPending) {
            drainPending = !drain(c);
            // The last look: everything a writer committed without seeing the announcement is visible now.
            wake.run();
        }
    }

    /**
     * Waits until writers that checked for idle relays before the announcement have finished their
     * commit: they hold the commit lock in shared mode until their commit is visible.
     *
     * @return whether they have; false when one took longer than the lock timeout (tried again)
     */
    private boolean drain(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(PgWakeups.drainCommits(key));
            return true;
        } catch (SQLException e) {
            if ("55P03".equals(e.getSQLState())) {
                log.debug("txoutbox: a writer on {} is slow to commit; the relay looks now and again later", channel);
                return false;
            }
            throw e;
        }
    }

    private String unlockIdle() {
        return PgWakeups.unlockIdle(key);
    }

    private void pause(long millis) {
        lock.lock();
        try {
            long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
            while (!closed && nanos > 0) {
                nanos = stopped.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            thread.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("txoutbox: the LISTEN thread for {} did not stop within {} ms", channel, STOP_WAIT_MILLIS);
        }
    }
}
