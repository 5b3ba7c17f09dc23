package io.txoutbox.jdbc;

import io.txoutbox.spi.ClaimResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The relay's claim: due rows within a row limit and a byte budget, leased to an owner on the database
 * clock, read and committed at once. Two strategies, chosen by the dialect's capability: {@link
 * OneStatementClaims} where the database has {@code UPDATE … RETURNING}, {@link ShortTransactionClaims}
 * elsewhere. Both read the rows with {@link ClaimedRows}.
 */
abstract class Claims {
    final Jdbc jdbc;
    final Binder bind;
    final ClaimedRows rows;
    private final String nextDueSql;

    Claims(OutboxSql sql, Jdbc jdbc, Binder bind) {
        this.jdbc = jdbc;
        this.bind = bind;
        this.rows = new ClaimedRows(sql, bind);
        this.nextDueSql =
                sql.dialect().claimPlanSettings() + sql.render(sql.dialect().nextDue());
    }

    /** @return the strategy the dialect's capabilities allow */
    static Claims of(OutboxSql sql, Jdbc jdbc, Binder bind) {
        return sql.dialect().supportsUpdateReturning()
                ? new OneStatementClaims(sql, jdbc, bind)
                : new ShortTransactionClaims(sql, jdbc, bind);
    }

    /** See {@link io.txoutbox.spi.OutboxStore#claim(String, int, long, Duration, Instant)}. */
    final ClaimResult claim(String owner, int limit, long maxBytes, Duration lease, Instant now) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes is " + maxBytes + "; it must be 1 or more");
        }
        return claimWithin(owner, limit, maxBytes, lease, now);
    }

    abstract ClaimResult claimWithin(String owner, int limit, long maxBytes, Duration lease, Instant now);

    /** Forgets what the claims keep of a relay that stopped (see {@link #claim}). */
    void forget(String owner) {}

    /**
     * Executes a statement that may start with the dialect's planner settings.
     *
     * @return the result set of its query, after the results of any statements before it
     */
    static ResultSet query(PreparedStatement ps) throws SQLException {
        boolean isQuery = ps.execute();
        while (!isQuery) {
            if (ps.getUpdateCount() == -1) {
                throw new SQLException("txoutbox: the claim statement returned no rows");
            }
            isQuery = ps.getMoreResults();
        }
        return ps.getResultSet();
    }

    /** @return the earliest due time of pending rows no one leases (in ordered mode: of heads) */
    final Optional<Instant> nextDueAt() {
        return jdbc.autocommit("next due", c -> {
            try (PreparedStatement ps = c.prepareStatement(nextDueSql);
                    ResultSet rs = query(ps)) {
                rs.next();
                return Optional.ofNullable(bind.getTime(rs, "due"));
            }
        });
    }
}
