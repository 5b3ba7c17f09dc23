package io.txoutbox.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

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
 * relay claimed past its rows (their {@code available_at} is the append's time), a lease that expired
 * or was returned, a row another program inserted with an old time. So a relay claims from the bottom
 * at least every {@link #RESCAN_INTERVAL}, and where a claim from the bottom is itself slow (many dead
 * entries under a held snapshot) no more often than {@link #RESCAN_COST_FACTOR} times its duration, so
 * that it costs at most a twentieth of a busy relay's time; and when its claim from the cursor finds
 * nothing, it looks behind the cursor at once, unless the last look behind found nothing there (then the
 * next claim from the bottom is the next look). The first claim of a relay starts at the bottom.
 */
final class ClaimCursor {
    /** The longest a row due behind a relay's cursor waits for a claim from the bottom, normally. */
    static final Duration RESCAN_INTERVAL = Duration.ofSeconds(1);
    /** A claim from the bottom that took d runs again after no less than this many times d. */
    static final int RESCAN_COST_FACTOR = 20;
    /** Relays whose cursors are kept; beyond it (owners that never stopped) all are forgotten. */
    static final int MAX_OWNERS = 1024;

    /** A row's position in the due index. */
    record Position(Instant availableAt, long seq) {
        boolean isAfter(Position other) {
            int byTime = availableAt.compareTo(other.availableAt);
            return byTime > 0 || byTime == 0 && seq > other.seq;
        }
    }

    /**
     * @param position where the relay's last claim began
     * @param nextBottom when to claim from the bottom, at the latest
     * @param lookBehind whether a claim from the cursor that finds nothing looks behind it at once: until a
     *     look behind found nothing there, and again after the next claim from the bottom that did
     */
    private record State(Position position, long nextBottom, boolean lookBehind) {}

    private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();

    /** @return where the owner's next claim starts after, or {@code null} for the bottom of the index */
    Position startFor(String owner) {
        State s = states.get(owner);
        if (s == null || s.position() == null || System.nanoTime() - s.nextBottom() >= 0) {
            return null;
        }
        return s.position();
    }

    /**
     * @return whether a claim from the cursor that found nothing should claim from the bottom at once.
     *     Not after a look behind that found nothing there (until the next claim from the bottom is due):
     *     under a held snapshot a claim from the bottom walks every dead entry, and a relay woken after
     *     every commit finds nothing ahead many times a second
     */
    boolean mayLookBehind(String owner) {
        State s = states.get(owner);
        return s == null || s.lookBehind() || System.nanoTime() - s.nextBottom() >= 0;
    }

    /**
     * Records a claim's end.
     *
     * @param owner the relay's lease owner
     * @param fromBottom whether the claim started at the bottom of the index
     * @param first the position of the first row it claimed, or {@code null} when it claimed none
     * @param tookNanos how long the claim took
     */
    void claimed(String owner, boolean fromBottom, Position first, long tookNanos) {
        State before = states.get(owner);
        if (before == null && states.size() >= MAX_OWNERS) {
            states.clear();
        }
        Position cursor = before == null ? null : before.position();
        long nextBottom;
        boolean lookBehind;
        if (fromBottom || before == null) {
            long wait = Math.max(RESCAN_INTERVAL.toNanos(), RESCAN_COST_FACTOR * tookNanos);
            nextBottom = System.nanoTime() + wait;
            // Rows were due behind the cursor (or there was none yet): look behind again when nothing is ahead.
            lookBehind = cursor == null || first != null && cursor.isAfter(first);
        } else {
            nextBottom = before.nextBottom();
            lookBehind = before.lookBehind();
        }
        // A claim from the bottom may begin behind the old cursor (rows were due there): start there next.
        Position position = first != null ? first : cursor;
        states.put(owner, new State(position, nextBottom, lookBehind));
    }

    /** Forgets a relay that stopped. */
    void forget(String owner) {
        states.remove(owner);
    }

    /** Reads the positions of a claim's rows as {@link ClaimedRows} reads them, keeping the first. */
    static final class Tracker implements ClaimedRows.EachRow {
        private final Binder bind;
        private Position first;

        Tracker(Binder bind) {
            this.bind = bind;
        }

        @Override
        public void accept(ResultSet rs) {
            Position p;
            try {
                Instant at = bind.getTime(rs, "position_at");
                long seq = rs.getLong("position_seq");
                if (at == null || rs.wasNull() || !bind.canBind(at)) {
                    // A row due at -infinity is at the bottom: no position to start a claim from.
                    return;
                }
                p = new Position(at, seq);
            } catch (SQLException | RuntimeException unreadable) {
                return; // the row itself is read (or goes dead) on its own; the cursor just does not move
            }
            if (first == null || first.isAfter(p)) {
                first = p;
            }
        }

        /** @return the position of the first row read, or {@code null} */
        Position first() {
            return first;
        }
    }
}
