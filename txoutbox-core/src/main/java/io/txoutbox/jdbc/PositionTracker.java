package io.txoutbox.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Reads the positions of a claim's rows as {@link ClaimedRows} reads them, keeping the first. */
final class PositionTracker implements ClaimedRows.EachRow {
    private final Binder bind;
    private ClaimCursor.Position first;

    PositionTracker(Binder bind) {
        this.bind = bind;
    }

    @Override
    public void accept(ResultSet rs) {
        ClaimCursor.Position p;
        try {
            Instant at = bind.getTime(rs, "position_at");
            long seq = rs.getLong("position_seq");
            if (at == null || rs.wasNull() || !bind.canBind(at)) {
                // A row due at -infinity is at the bottom: no position to start a claim from.
                return;
            }
            p = new ClaimCursor.Position(at, seq);
        } catch (SQLException | RuntimeException unreadable) {
            return; // the row itself is read (or goes dead) on its own; the cursor just does not move
        }
        if (first == null || first.isAfter(p)) {
            first = p;
        }
    }

    /** @return the position of the first row read, or {@code null} */
    ClaimCursor.Position first() {
        return first;
    }
}
