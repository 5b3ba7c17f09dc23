package io.txoutbox.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * Where each relay's next claim starts in the due index ({@code available_at, seq}): at the first row
 * of its last claim, or at the bottom of the index. A claim that always starts at the bottom walks the index
 * entries of every row published since the last vacuum, and under a held snapshot (a report, a {@code
 * pg_dump}, a forgotten {@code BEGIN}) vacuum cannot remove them, so each claim gets slower than the one
 * before. From the cursor a claim walks only what is ahead, and its own last batch again (at most a
 * batch of entries, published or still leased): so a batch whose mark failed and whose lease expired
 * is claimed again whole from there.
 *
 * <p>A row can come to be due behind the cursor: an appending transaction that committed after the
 * relay claimed past its rows (their {@code available_at} is the append's time, or for rows inserted by
 * hand usually {@code now()}, the start of their transaction), a lease that expired or was returned, a row
 * another program inserted with an old time. Three ways bring the claim back there, each walking only
 * the range behind the cursor that can hold such rows, not the dead head of the index:
 *
 * <ul>
 *   <li>A <em>hint</em>: the after-commit signal of a transaction says where its rows sit (the lowest
 *       {@code available_at} of them; see {@link #hint}). A relay whose cursor is past the hint starts
 *       its next claim there, whatever the hint's age.
 *   <li>The <em>near look-behind</em>: at most every {@link #NEAR_INTERVAL}, and when a claim from the
 *       cursor finds nothing, the claim starts {@link #NEAR_RANGE} behind the cursor, for the rows of
 *       transactions that committed a little late and sent no hint (a foreign writer while every relay is
 *       busy: its trigger sends a hint only for rows at least {@link PgWakeups#LATE_HINT_MILLIS} behind
 *       their commit, which is less than this range less the interval).
 *   <li>The <em>rescan</em>, the safety net (expired and returned leases, writers with no signal): at
 *       least every {@link #RESCAN_INTERVAL}, and where it is itself slow no more often than {@link
 *       #RESCAN_COST_FACTOR} times its duration, so that it costs at most a twentieth of a busy relay's
 *       time; and when its claim from the cursor finds nothing, it rescans at once, unless the last look
 *       behind found nothing there (then the next rescan is the next look). A rescan starts at the relay's
 *       <em>floor</em>: the lowest position it claimed from since its last claim from the very bottom of the
 *       index, less {@link #FLOOR_MARGIN}, below which nothing was due and free then. Only rows leased by
 *       another relay when that claim ran (their lease expired or was returned), and rows of a transaction
 *       that was open then for longer than the margin and committed without a signal, can come to be due
 *       below the floor, so the relay claims
 *       from the very bottom, which under a held snapshot walks every dead entry there and stalls it for as
 *       long, only every {@link #BOTTOM_INTERVAL} (or {@link #RESCAN_COST_FACTOR} times its duration), and
 *       a relay that returns its leases hints its floor to the others. The first claim of a relay starts at
 *       the bottom; if it finds nothing, the cursor is where it looked up to (the claim's now: nothing due
 *       and free was below it), so that the claims after it, on a quiet table full of dead entries, do not
 *       each walk them all again until one finds a row.
 * </ul>
 *
 * Once a relay has a cursor, its rescans run beside its claims ({@link Rescans}): a rescan that walks many
 * dead entries then holds up no claim from the cursor, and it leaves the cursor where those claims moved it.
 *
 * <p>Every claim takes only due rows that no live lease holds, with {@code FOR UPDATE SKIP LOCKED}, so where
 * a claim starts decides only how soon a row is claimed, never whether it is claimed twice.
 */
final class ClaimCursor {
    /** The longest a row due behind a relay's cursor waits for a claim from the bottom, normally. */
    static final Duration RESCAN_INTERVAL = Duration.ofSeconds(1);
    /** A claim from the bottom that took d runs again after no less than this many times d. */
    static final int RESCAN_COST_FACTOR = 20;
    /** The longest between two claims from the very bottom of the index, below a relay's floor. */
    static final Duration BOTTOM_INTERVAL = Duration.ofSeconds(10);
    /**
     * How far below the first row of a claim from the very bottom the floor is: rows of a transaction that
     * was open then, held no longer than this and committed with no signal, are still above it.
     */
    static final Duration FLOOR_MARGIN = Duration.ofSeconds(5);
    /** Relays whose cursors are kept; beyond it (owners that never stopped) all are forgotten. */
    static final int MAX_OWNERS = 1024;
    /** How far behind its cursor the near look-behind starts. */
    static final Duration NEAR_RANGE = Duration.ofMillis(200);
    /** The near look-behind runs no more often than this (and when a claim from the cursor finds nothing). */
    static final Duration NEAR_INTERVAL = Duration.ofMillis(50);

    /**
     * Whether hints and the near look-behind are used: not a setting, but a switch for the benchmark that
     * compares them with the relay before them ({@code -Dtxoutbox.internal.look-behind=off}); never turn it
     * off in production.
     */
    static final boolean LOOK_BEHIND = !"off".equals(System.getProperty("txoutbox.internal.look-behind"));

    /**
     * Whether a relay's first claim that finds nothing leaves its cursor where that claim looked up to: not
     * a setting, but a switch for the benchmark that compares it with the relay before it, whose claims
     * started at the bottom until one found a row ({@code -Dtxoutbox.internal.empty-claim-cursor=off}).
     */
    static final boolean EMPTY_CLAIM_CURSOR = !"off".equals(System.getProperty("txoutbox.internal.empty-claim-cursor"));

    /** A row's position in the due index. */
    record Position(Instant availableAt, long seq) {
        boolean isAfter(Position other) {
            int byTime = availableAt.compareTo(other.availableAt);
            return byTime > 0 || byTime == 0 && seq > other.seq;
        }

        /** @return the first position of a time: before every row due then */
        static Position at(Instant availableAt) {
            return new Position(availableAt, Long.MIN_VALUE);
        }
    }

    /** Where a claim starts from. */
    enum From {
        /** The bottom of the index. */
        BOTTOM,
        /** The relay's floor: a rescan. */
        FLOOR,
        /** A hint behind the cursor. */
        HINT,
        /** {@link #NEAR_RANGE} behind the cursor. */
        NEAR,
        /** The cursor. */
        CURSOR
    }

    /**
     * @param from which way
     * @param position where, or {@code null} from the bottom
     */
    record Start(From from, Position position) {
        static final Start BOTTOM = new Start(From.BOTTOM, null);
    }

    /**
     * @param position where the relay's last claim began
     * @param nextBottom when to claim from the bottom, at the latest
     * @param lookBehind whether a claim from the cursor that finds nothing looks behind it at once: until a
     *     look behind found nothing there, and again after the next claim from the bottom that did
     * @param nextNear when the next claim starts {@link #NEAR_RANGE} behind the cursor
     * @param floor the lowest position claimed from since the last claim from the very bottom, or {@code null}
     * @param nextVeryBottom when a rescan starts at the very bottom instead of the floor
     */
    private record State(
            Position position,
            long nextBottom,
            boolean lookBehind,
            long nextNear,
            Position floor,
            long nextVeryBottom) {
        boolean rescanDue(long now) {
            return now - nextBottom >= 0;
        }
    }

    /** One relay's cursor, and the lowest hint behind it not yet taken. */
    private static final class Owner {
        volatile State state;
        final AtomicReference<Instant> hint = new AtomicReference<>();
    }

    private final ConcurrentHashMap<String, Owner> owners = new ConcurrentHashMap<>();
    private final Predicate<Instant> canBind;

    /** @param canBind whether the database can hold a time: a start outside its range is not used */
    ClaimCursor(Predicate<Instant> canBind) {
        this.canBind = canBind;
    }

    /**
     * Where a committed transaction's rows sit: every relay whose cursor is past it starts its next claim
     * there. Never blocks, never throws: called after commit by the committing thread and by the listener.
     *
     * @param availableAt the lowest {@code available_at} of the transaction's rows
     */
    void hint(Instant availableAt) {
        if (!LOOK_BEHIND || availableAt == null || !canBind.test(availableAt)) {
            return;
        }
        Position hinted = Position.at(availableAt);
        for (Owner o : owners.values()) {
            State s = o.state;
            if (s != null && s.position() != null && s.position().isAfter(hinted)) {
                o.hint.accumulateAndGet(availableAt, (a, b) -> a == null || b.isBefore(a) ? b : a);
            }
        }
    }

    /** @return where the owner's next claim starts */
    Start startFor(String owner) {
        Owner o = owners.get(owner);
        State s = o == null ? null : o.state;
        long now = System.nanoTime();
        if (s == null || s.position() == null || s.rescanDue(now)) {
            if (o != null) {
                o.hint.set(null); // the rescan begins after the hinted rows committed, and below them
            }
            return rescan(s, now);
        }
        return ahead(o, s, now);
    }

    /** @return a hint behind the cursor, the near look-behind when due, or the cursor */
    private Start ahead(Owner o, State s, long now) {
        Instant hinted = o.hint.getAndSet(null);
        if (hinted != null && s.position().isAfter(Position.at(hinted))) {
            return new Start(From.HINT, Position.at(hinted));
        }
        if (LOOK_BEHIND && now - s.nextNear() >= 0) {
            Start near = nearBehind(s.position());
            if (near != null) {
                return near;
            }
        }
        return new Start(From.CURSOR, s.position());
    }

    /**
     * @return whether the owner has a cursor (a claim found rows since it started): then its rescans may run
     *     beside its claims ({@link Rescans}); until then every claim of it starts at the bottom
     */
    boolean hasPosition(String owner) {
        Owner o = owners.get(owner);
        State s = o == null ? null : o.state;
        return s != null && s.position() != null;
    }

    /** @return whether the owner's next rescan is due */
    boolean rescanDue(String owner) {
        Owner o = owners.get(owner);
        State s = o == null ? null : o.state;
        return s == null || s.rescanDue(System.nanoTime());
    }

    /**
     * Where the owner's next claim starts when its rescans run on their own ({@link Rescans}): a hint
     * behind the cursor, the near look-behind, or the cursor; never a rescan, except from the bottom for
     * an owner whose cursor was forgotten meanwhile (it stopped, or {@link #MAX_OWNERS} were reached).
     */
    Start aheadFor(String owner) {
        Owner o = owners.get(owner);
        State s = o == null ? null : o.state;
        if (s == null || s.position() == null) {
            return Start.BOTTOM;
        }
        return ahead(o, s, System.nanoTime());
    }

    /** @return where a claim behind everything starts: the floor, or now and then the very bottom */
    Start rescanFor(String owner) {
        Owner o = owners.get(owner);
        return rescan(o == null ? null : o.state, System.nanoTime());
    }

    private Start rescan(State s, long now) {
        if (!LOOK_BEHIND || s == null || s.floor() == null || now - s.nextVeryBottom() >= 0) {
            return Start.BOTTOM;
        }
        return new Start(From.FLOOR, s.floor());
    }

    /**
     * @param owner a relay that returns its leases
     * @return the lowest position it claimed from since its last claim from the very bottom, or {@code null}
     */
    Instant floorOf(String owner) {
        Owner o = owners.get(owner);
        State s = o == null ? null : o.state;
        return s == null || s.floor() == null ? null : s.floor().availableAt();
    }

    /**
     * @param cursor a claim's start that found nothing
     * @return where to look behind it, or {@code null} where the cursor is too close to the database's
     *     earliest time
     */
    Start nearBehind(Position cursor) {
        Instant at = cursor.availableAt().minus(NEAR_RANGE);
        return LOOK_BEHIND && canBind.test(at) ? new Start(From.NEAR, Position.at(at)) : null;
    }

    /**
     * @return whether a claim from the cursor that found nothing should claim from the bottom at once.
     *     Not after a look behind that found nothing there (until the next claim from the bottom is due):
     *     under a held snapshot a claim from the bottom walks every dead entry, and a relay woken after
     *     every commit finds nothing ahead many times a second
     */
    boolean mayLookBehind(String owner) {
        Owner o = owners.get(owner);
        State s = o == null ? null : o.state;
        return s == null || s.lookBehind() || s.rescanDue(System.nanoTime());
    }

    /**
     * Records a claim's end.
     *
     * @param owner the relay's lease owner
     * @param from where the claim started
     * @param first the position of the first row it claimed, or {@code null} when it claimed none
     * @param tookNanos how long the claim took
     */
    void claimed(String owner, From from, Position first, long tookNanos) {
        claimed(owner, from, first, null, tookNanos, false, false);
    }

    /**
     * Records a claim's end, as {@link #claimed(String, From, Position, long)}; a claim from the bottom by a
     * relay with no cursor yet that found nothing leaves the cursor at {@code upTo}: nothing due and free
     * was at or below it then, and what comes to be due below it later (a transaction that commits late, a
     * lease that expires) is behind the cursor like any late row, for the hints, the near look-behind and
     * the rescans.
     *
     * @param upTo the claim's now (it took rows due at or before it), or {@code null}; a time ahead of this
     *     machine's clock counts as the clock's now
     */
    void claimed(String owner, From from, Position first, Instant upTo, long tookNanos) {
        claimed(owner, from, first, upTo, tookNanos, false, false);
    }

    /**
     * Records the end of a rescan that ran beside the owner's claims ({@link Rescans}): as {@link
     * #claimed(String, From, Position, long)}, except that the cursor stays where the claims beside it
     * moved it (rows behind it are the rescans' to take, without the claims walking back over everything
     * between), and that a rescan that took a whole batch is due again at once, for the rest.
     *
     * @param full whether it claimed as many rows as it was allowed
     */
    void rescanned(String owner, From from, Position first, long tookNanos, boolean full) {
        claimed(owner, from, first, null, tookNanos, true, full);
    }

    /** Records a rescan that failed: the next one is due after {@link #RESCAN_INTERVAL}, nothing else moves. */
    void rescanFailed(String owner) {
        Owner o = owners.get(owner);
        if (o == null) {
            return;
        }
        synchronized (o) {
            State s = o.state;
            if (s != null) {
                o.state = new State(
                        s.position(),
                        System.nanoTime() + RESCAN_INTERVAL.toNanos(),
                        s.lookBehind(),
                        s.nextNear(),
                        s.floor(),
                        s.nextVeryBottom());
            }
        }
    }

    private void claimed(
            String owner, From from, Position first, Instant upTo, long tookNanos, boolean beside, boolean full) {
        Owner o = owners.get(owner);
        if (o == null) {
            if (owners.size() >= MAX_OWNERS) {
                owners.clear();
            }
            o = owners.computeIfAbsent(owner, k -> new Owner());
        }
        // A rescan beside the claims ends on its own thread: one owner's state changes one at a time.
        synchronized (o) {
            record(o, from, first, upTo, tookNanos, beside, full);
        }
    }

    private void record(
            Owner o, From from, Position claimedFirst, Instant upTo, long tookNanos, boolean beside, boolean full) {
        State before = o.state;
        Position cursor = before == null ? null : before.position();
        // An empty first claim from the bottom: nothing due and free was at or below where it looked up to.
        Position first =
                claimedFirst == null && cursor == null && from == From.BOTTOM ? emptyClaimPosition(upTo) : claimedFirst;
        long now = System.nanoTime();
        long nextBottom;
        boolean lookBehind;
        long nextNear = before == null ? now : before.nextNear();
        Position floor = before == null ? null : before.floor();
        long nextVeryBottom = before == null ? now : before.nextVeryBottom();
        if (from == From.BOTTOM) {
            // Nothing was due and free below its first row (or anywhere, if none): the floor is a margin below,
            // for the rows of transactions without a signal that were still open then.
            Position base = first != null ? first : cursor;
            Instant at = base == null ? null : base.availableAt().minus(FLOOR_MARGIN);
            floor = at != null && canBind.test(at) ? Position.at(at) : null;
            nextVeryBottom = now + Math.max(BOTTOM_INTERVAL.toNanos(), RESCAN_COST_FACTOR * tookNanos);
        } else if (first != null && floor != null && floor.isAfter(first)) {
            floor = first;
        }
        if (from == From.BOTTOM || from == From.FLOOR || before == null) {
            long wait = Math.max(RESCAN_INTERVAL.toNanos(), RESCAN_COST_FACTOR * tookNanos);
            nextBottom = now + wait;
            // Rows were due behind the cursor (or there was none yet): look behind again when nothing is ahead.
            lookBehind = cursor == null || first != null && cursor.isAfter(first);
            nextNear = now + NEAR_INTERVAL.toNanos();
        } else {
            nextBottom = before.nextBottom();
            lookBehind = before.lookBehind();
            if (from == From.NEAR) {
                nextNear = now + NEAR_INTERVAL.toNanos();
            }
        }
        if (beside && full) {
            nextBottom = now; // more may wait behind: the next rescan is due at once
        }
        // A claim from behind the old cursor may begin there (rows were due there): start there next; not
        // after a rescan beside the claims, which keeps the cursor and takes what is behind it itself.
        Position position = first != null && !(beside && cursor != null) ? first : cursor;
        o.state = new State(position, nextBottom, lookBehind, nextNear, floor, nextVeryBottom);
    }

    /**
     * @param upTo the time an empty first claim looked up to, or {@code null}
     * @return where that claim leaves the cursor, never past this machine's clock (a claim made with a time
     *     ahead of it, by a caller of the store looking for delayed rows, would leave every later claim from
     *     the cursor nothing to find); {@code null} for none
     */
    private Position emptyClaimPosition(Instant upTo) {
        if (upTo == null || !LOOK_BEHIND || !EMPTY_CLAIM_CURSOR || !canBind.test(upTo)) {
            return null;
        }
        Instant wall = Instant.now();
        return Position.at(upTo.isAfter(wall) ? wall : upTo);
    }

    /** Forgets a relay that stopped. */
    void forget(String owner) {
        owners.remove(owner);
    }
}
