package io.txoutbox.jdbc;

import io.txoutbox.spi.ClaimResult;
import java.time.Duration;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rescans of one table's claims (see {@link ClaimCursor}), run on a thread of their own beside the
 * relays' claims from their cursors. A rescan walks the due index from a relay's floor or from its very
 * bottom, and under a held snapshot (or over deletes not yet vacuumed) that walk crosses every dead entry
 * there: hundreds of milliseconds, seconds on a loaded machine. Run by the relay's own claim, it stalled
 * every event behind it for as long; beside it, the relay goes on claiming what is ahead while the rescan
 * takes what came to be due behind.
 *
 * <p>A rescan claims like any claim (the rows it takes are leased to the relay, {@code FOR UPDATE SKIP
 * LOCKED}, so no row is taken by a rescan and a claim both) and keeps its batch for the relay's next claim,
 * which returns it; the relays of this store in this JVM are woken so that it is taken at once. At most one
 * rescan runs per relay. A relay that stops while its rescan runs has that rescan's rows released when it
 * ends; a failed rescan is logged and tried again after the rescan interval.
 */
final class Rescans implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Rescans.class);

    private final String table;
    private final ThreadFactory threads;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Queue<Kept>> finished = new ConcurrentHashMap<>();
    private final Set<String> forgotten = ConcurrentHashMap.newKeySet();
    private volatile Runnable wake = () -> {};
    private volatile Consumer<String> release = owner -> {};
    private volatile ExecutorService executor;
    private volatile boolean closed;

    /** @param table the table, for the name of the rescans' daemon thread ({@code txoutbox-rescan-<table>}) and messages */
    Rescans(String table) {
        this.table = table;
        this.threads = r -> {
            Thread t = new Thread(r, "txoutbox-rescan-" + table);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * @param wake wakes this store's relays in this JVM (a rescan's batch waits for a relay's next claim)
     * @param release returns every lease of a relay that stopped
     */
    void connect(Runnable wake, Consumer<String> release) {
        this.wake = wake;
        this.release = release;
    }

    /**
     * Starts a rescan for a relay unless one runs for it already.
     *
     * @param owner the relay's lease owner
     * @param claim the rescan's claim: claims, records the cursor's new state, returns the batch
     * @param failed records a failed rescan in the cursor
     */
    void start(String owner, Supplier<ClaimResult> claim, Runnable failed) {
        if (closed || !running.add(owner)) {
            return;
        }
        forgotten.remove(owner);
        try {
            executor().execute(() -> run(owner, claim, failed));
        } catch (RejectedExecutionException stopped) {
            running.remove(owner);
        }
    }

    private void run(String owner, Supplier<ClaimResult> claim, Runnable failed) {
        long started = System.nanoTime();
        try {
            ClaimResult batch = claim.get();
            if (batch.size() == 0) {
                return;
            }
            if (forgotten.remove(owner)) {
                release.accept(owner);
                return;
            }
            finished.computeIfAbsent(owner, k -> new ConcurrentLinkedQueue<>()).add(new Kept(batch, started));
            wake.run();
        } catch (RuntimeException e) {
            failed.run();
            log.warn(
                    "txoutbox: a rescan of table {} for relay {} failed ({}); the next one is due in a second",
                    table,
                    owner,
                    e.getMessage());
        } finally {
            running.remove(owner);
        }
    }

    /** A rescan's batch, and when its claim started (its lease runs from about then). */
    private record Kept(ClaimResult batch, long claimedAt) {}

    /**
     * @param lease the relay's lease: a batch kept for longer than half of it (a paused relay, one whose
     *     slots stayed full) is left to its lease rather than published late, so that another relay taking it
     *     over meanwhile never makes it a duplicate; it is claimed again once the lease expires
     * @return the batch of a rescan that ended for the relay, taken once, or {@code null}
     */
    ClaimResult take(String owner, Duration lease) {
        Queue<Kept> q = finished.get(owner);
        if (q == null) {
            return null;
        }
        long now = System.nanoTime();
        for (Kept kept; (kept = q.poll()) != null; ) {
            if (now - kept.claimedAt() < lease.toNanos() / 2) {
                return kept.batch();
            }
            log.debug(
                    "txoutbox: a rescan's batch of {} rows of table {} waited past half its lease for relay {}; it is"
                            + " left to its lease",
                    kept.batch().size(),
                    table,
                    owner);
        }
        return null;
    }

    /**
     * Forgets a relay that stopped: a batch its rescans kept is dropped (the relay returns its leases right
     * after), and a rescan still running returns its rows itself when it ends.
     */
    void forget(String owner) {
        finished.remove(owner);
        if (running.contains(owner)) {
            forgotten.add(owner);
        }
    }

    private ExecutorService executor() {
        ExecutorService e = executor;
        if (e == null) {
            synchronized (this) {
                e = executor;
                if (e == null) {
                    e = Executors.newSingleThreadExecutor(threads);
                    executor = e;
                }
            }
        }
        return e;
    }

    /** Stops the rescans' thread; a rescan in progress ends with its statement. */
    @Override
    public void close() {
        closed = true;
        ExecutorService e = executor;
        if (e != null) {
            e.shutdown();
        }
    }
}
