package io.txoutbox.jdbc;

import io.txoutbox.spi.ClaimResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Claims a batch with one {@code UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED) … RETURNING} in
 * autocommit: the statement picks the rows within the byte budget by the sizes of the columns it reads,
 * leases them and returns them, and its commit is the claim's. It returns no payload or headers of a row
 * whose attempt budget is spent or whose headers are beyond any valid event's (both go dead), nor of a row
 * larger than the budget, which is read alone after the commit ({@link #readAlone}). The planner settings of the dialect run in the same
 * round trip, so the plan is the due index's whether or not the table was ever analyzed.
 *
 * <p>With {@link OutboxSql#fair() fair claims}, the statement takes the oldest due row of every key before
 * the second of any ({@link SqlDialect#claimReturningFair()}), always from the bottom of the keys' index.
 *
 * <p>In unordered mode, where the dialect supports it, each relay claims from its {@link ClaimCursor}:
 * from the position of the first row of its last claim, so the index entries of rows it already published are not
 * walked again (they stay in the index until vacuum, and as long as any snapshot is held). It claims
 * from the bottom of the index now and then, and when nothing is due ahead of the cursor (see {@link
 * ClaimCursor} for how often), so that a row that came to be due behind the cursor (a transaction that
 * committed late, an expired lease, a released one) is claimed too; and from a {@link #hint} behind
 * the cursor, where a committed transaction says its rows sit.
 */
final class OneStatementClaims extends Claims {
    /**
     * Whether the claim's commit waits for its log flush as before ({@link SqlDialect#claimCommitSettings()}
     * left out): not a setting, but a switch for the benchmark that compares the two, read when a store is
     * built ({@code -Dtxoutbox.internal.claim-commit=flush}); never turn it on in production.
     */
    private final boolean flushClaims = "flush".equals(System.getProperty("txoutbox.internal.claim-commit"));

    private final String fromBottomSql;
    private final String fromCursorSql;
    private final boolean keyset;
    private final ClaimCursor cursors;
    private final Rescans rescans;

    OneStatementClaims(OutboxSql sql, Jdbc jdbc, Binder bind) {
        super(sql, jdbc, bind);
        SqlDialect d = sql.dialect();
        String settings = d.claimPlanSettings() + (flushClaims ? "" : d.claimCommitSettings());
        this.fromBottomSql = settings + sql.render(sql.fair() == null ? d.claimReturning() : d.claimReturningFair());
        // A fair claim walks the keys' index, not the due index a cursor points into.
        this.keyset = d.supportsKeysetClaims() && !sql.ordered() && sql.fair() == null;
        this.cursors = new ClaimCursor(bind::canBind);
        this.rescans = new Rescans(sql.table().name());
        this.fromCursorSql = keyset ? settings + sql.render(d.claimReturningAfter()) : fromBottomSql;
    }

    @Override
    ClaimResult claimWithin(String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now) {
        // Once a relay has a cursor, its rescans run beside its claims (Rescans): it returns what one took.
        boolean beside = keyset && cursors.hasPosition(owner);
        if (beside) {
            ClaimResult rescanned = rescans.take(owner, lease);
            if (rescanned != null) {
                return rescanned;
            }
            if (cursors.rescanDue(owner)) {
                rescan(owner, limit, maxBytes, maxAttempts, lease, now);
            }
        }
        List<Object> alone = new ArrayList<>();
        ClaimResult batch = jdbc.autocommit("claim", c -> {
            ClaimCursor.Start start =
                    !keyset ? ClaimCursor.Start.BOTTOM : beside ? cursors.aheadFor(owner) : cursors.startFor(owner);
            long started = System.nanoTime();
            PositionTracker tracker = new PositionTracker(bind);
            List<ClaimedRows.Row> claimed =
                    claim(c, start.position(), tracker, owner, limit, maxBytes, maxAttempts, lease, now);
            boolean rescan = start.from() == ClaimCursor.From.BOTTOM || start.from() == ClaimCursor.From.FLOOR;
            if (claimed.isEmpty() && !rescan) {
                // Nothing ahead: look behind at once, so a late commit waits for no rescan. First here, over
                // the range a late commit most likely is in; then, if that found nothing either, a rescan
                // beside this claim, unless the last look there found nothing. In that order, so that the
                // rescan never takes (and keeps for a later claim) a row this claim would have returned.
                ClaimCursor.Start behind =
                        start.from() == ClaimCursor.From.CURSOR ? cursors.nearBehind(start.position()) : null;
                if (behind != null) {
                    start = behind;
                    started = System.nanoTime();
                    claimed = claim(c, start.position(), tracker, owner, limit, maxBytes, maxAttempts, lease, now);
                }
                if (claimed.isEmpty() && cursors.mayLookBehind(owner)) {
                    rescan(owner, limit, maxBytes, maxAttempts, lease, now);
                }
            }
            if (keyset) {
                cursors.claimed(owner, start.from(), tracker.first(), now, System.nanoTime() - started);
            }
            return settle(c, claimed, owner, alone);
        });
        return ClaimedRows.merge(batch, readAlone(alone, owner));
    }

    /** Starts a rescan for the relay beside its claims, unless one runs for it already. */
    private void rescan(String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now) {
        rescans.start(
                owner,
                () -> {
                    List<Object> alone = new ArrayList<>();
                    ClaimResult batch = jdbc.autocommit("claim", c -> {
                        ClaimCursor.Start start = cursors.rescanFor(owner);
                        long started = System.nanoTime();
                        PositionTracker tracker = new PositionTracker(bind);
                        List<ClaimedRows.Row> claimed =
                                claim(c, start.position(), tracker, owner, limit, maxBytes, maxAttempts, lease, now);
                        cursors.rescanned(
                                owner,
                                start.from(),
                                tracker.first(),
                                System.nanoTime() - started,
                                claimed.size() >= limit);
                        return settle(c, claimed, owner, alone);
                    });
                    return ClaimedRows.merge(batch, readAlone(alone, owner));
                },
                () -> cursors.rescanFailed(owner));
    }

    /**
     * Settles a claim's rows in its transaction, keeping aside the ids of rows too large to read in the
     * batch (read one by one after the commit: {@link #readAlone}).
     */
    private ClaimResult settle(Connection c, List<ClaimedRows.Row> claimed, String owner, List<Object> alone)
            throws SQLException {
        for (ClaimedRows.Row row : claimed) {
            if (row.alone()) {
                alone.add(row.id());
            }
        }
        return rows.settle(c, claimed, owner);
    }

    private List<ClaimedRows.Row> claim(
            Connection c,
            ClaimCursor.Position from,
            PositionTracker tracker,
            String owner,
            int limit,
            long maxBytes,
            int maxAttempts,
            Duration lease,
            Instant now)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(from == null ? fromBottomSql : fromCursorSql)) {
            int i = 1;
            ps.setInt(i++, maxAttempts);
            bind.setTime(ps, i++, now);
            if (from != null) {
                bind.setTime(ps, i++, from.availableAt());
                ps.setLong(i++, from.seq());
            }
            ps.setInt(i++, limit);
            ps.setLong(i++, maxBytes);
            ps.setLong(i++, maxBytes);
            ps.setString(i++, owner);
            ps.setLong(i, lease.toMillis());
            try (ResultSet rs = Claims.query(ps)) {
                return rows.readFlagged(rs, tracker, maxAttempts);
            }
        }
    }

    @Override
    void hint(Instant availableAt) {
        if (keyset) {
            cursors.hint(availableAt);
        }
    }

    @Override
    Instant floorOf(String owner) {
        return keyset ? cursors.floorOf(owner) : null;
    }

    @Override
    void forget(String owner) {
        rescans.forget(owner);
        cursors.forget(owner);
    }

    @Override
    void connect(Runnable wake, Consumer<String> release) {
        rescans.connect(wake, release);
    }

    @Override
    public void close() {
        rescans.close();
    }
}
