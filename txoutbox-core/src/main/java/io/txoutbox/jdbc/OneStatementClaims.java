package io.txoutbox.jdbc;

import io.txoutbox.spi.ClaimResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Claims a batch with one {@code UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED) … RETURNING} in
 * autocommit: the statement picks the rows within the byte budget by their payload sizes, leases them
 * and returns them, and its commit is the claim's.
 */
final class OneStatementClaims extends Claims {
    private final String claimSql;

    OneStatementClaims(OutboxSql sql, Jdbc jdbc, Binder bind) {
        super(sql, jdbc, bind);
        this.claimSql = sql.render(sql.dialect().claimReturning());
    }

    @Override
    ClaimResult claimWithin(String owner, int limit, long maxBytes, Duration lease, Instant now) {
        return jdbc.autocommit("claim", c -> {
            List<ClaimedRows.Row> claimed;
            try (PreparedStatement ps = c.prepareStatement(claimSql)) {
                bind.setTime(ps, 1, now);
                ps.setInt(2, limit);
                ps.setLong(3, maxBytes);
                ps.setString(4, owner);
                ps.setLong(5, lease.toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    claimed = rows.read(rs);
                }
            }
            return rows.settle(c, claimed, owner);
        });
    }
}
