package io.txoutbox.jdbc;

import io.txoutbox.spi.ClaimResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Claims a batch in one short transaction where the database has no {@code UPDATE … RETURNING}: select
 * and lock due rows with their payload sizes ({@code SKIP LOCKED}), pick the rows within the byte budget,
 * lease them, then read only those. Their ids are bound as the database returned them, so a row whose id
 * is not a canonical UUID is still leased and can be quarantined.
 */
final class ShortTransactionClaims extends Claims {
    private final String selectSql;
    private final String updateSql;
    private final String readSql;

    ShortTransactionClaims(OutboxSql sql, Jdbc jdbc, Binder bind) {
        super(sql, jdbc, bind);
        this.selectSql = sql.render(sql.dialect().claimSelect());
        this.updateSql = sql.render(sql.dialect().claimUpdate());
        this.readSql = sql.render(sql.dialect().claimRead());
    }

    @Override
    ClaimResult claimWithin(String owner, int limit, long maxBytes, Duration lease, Instant now) {
        return jdbc.transaction("claim", c -> {
            // Ids and sizes first: the rows within the byte budget are picked before any payload is read.
            List<Object> keys = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(selectSql)) {
                bind.setTime(ps, 1, now);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    long before = 0;
                    while (rs.next() && before < maxBytes) {
                        keys.add(rs.getObject("id"));
                        before += rs.getLong("bytes");
                    }
                }
            }
            if (keys.isEmpty()) {
                return ClaimResult.EMPTY;
            }
            try (PreparedStatement ps = c.prepareStatement(OutboxSql.withIds(updateSql, keys.size()))) {
                ps.setString(1, owner);
                ps.setLong(2, lease.toMillis());
                bindKeys(ps, 3, keys);
                ps.executeUpdate();
            }
            List<ClaimedRows.Row> claimed;
            try (PreparedStatement ps = c.prepareStatement(OutboxSql.withIds(readSql, keys.size()))) {
                bindKeys(ps, 1, keys);
                try (ResultSet rs = ps.executeQuery()) {
                    claimed = rows.read(rs);
                }
            }
            return rows.settle(c, claimed, owner);
        });
    }

    private static void bindKeys(PreparedStatement ps, int first, List<Object> keys) throws SQLException {
        int i = first;
        for (Object key : keys) {
            ps.setObject(i++, key);
        }
    }
}
