package io.txoutbox.jdbc;

import io.txoutbox.OutboxStoreException;
import io.txoutbox.spi.ClaimResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Claims a batch in one short transaction where the database has no {@code UPDATE … RETURNING}: select
 * and lock due rows with the sizes of the columns a claim reads ({@code SKIP LOCKED}), pick the rows
 * within the byte budget, lease them, then read only those. Their ids are bound as the database returned
 * them, so a row whose id is not a canonical UUID is still leased and can be quarantined. A row whose
 * attempt budget is spent, or whose headers are beyond any valid event's, is leased and not read (both go
 * dead); a row larger than the budget is read alone after the commit ({@link #readAlone}).
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
    ClaimResult claimWithin(String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now) {
        List<Object> alone = new ArrayList<>();
        ClaimResult batch = jdbc.transaction("claim", c -> {
            // Ids and sizes first: the rows within the byte budget are picked before any payload is read.
            List<Object> keys = new ArrayList<>();
            List<Object> together = new ArrayList<>();
            List<ClaimedRows.Row> claimed = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(selectSql)) {
                ps.setInt(1, maxAttempts);
                bind.setTime(ps, 2, now);
                ps.setInt(3, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    long before = 0;
                    while (rs.next() && before < maxBytes) {
                        Object key = rs.getObject("id");
                        boolean spent = rs.getBoolean("spent");
                        long headerBytes = rs.getLong("header_bytes");
                        boolean withheld = spent || headerBytes > ClaimedRows.MAX_HEADERS_BYTES;
                        long bytes =
                                (withheld ? 0 : rs.getLong("payload_bytes") + headerBytes) + rs.getLong("text_bytes");
                        keys.add(key);
                        before += bytes;
                        if (withheld) {
                            UUID id = idOf(key);
                            claimed.add(rows.notRead(
                                    rs, id, id == null ? String.valueOf(key) : null, spent, headerBytes, maxAttempts));
                        } else if (bytes > maxBytes) {
                            alone.add(key);
                        } else {
                            together.add(key);
                        }
                    }
                }
            }
            if (keys.isEmpty()) {
                return ClaimResult.EMPTY;
            }
            try (PreparedStatement ps = c.prepareStatement(OutboxSql.withIds(updateSql, keys.size()))) {
                ps.setString(1, owner);
                ps.setLong(2, lease.toMillis());
                ps.setInt(3, maxAttempts);
                bindKeys(ps, 4, keys);
                ps.executeUpdate();
            }
            claimed.addAll(read(c, together));
            return rows.settle(c, claimed, owner);
        });
        return ClaimedRows.merge(batch, readAlone(alone, owner));
    }

    /**
     * Reads the rows in one statement; when that fails, each row alone, so that a row the driver cannot
     * read goes dead with the reason and the others are read.
     */
    private List<ClaimedRows.Row> read(Connection c, List<Object> keys) throws SQLException {
        if (keys.isEmpty()) {
            return List.of();
        }
        try {
            return readRows(c, keys);
        } catch (SQLException together) {
            List<ClaimedRows.Row> read = new ArrayList<>(keys.size());
            for (Object key : keys) {
                try {
                    read.addAll(readRows(c, List.of(key)));
                } catch (SQLException alone) {
                    UUID id = idOf(key);
                    read.add(ClaimedRows.Row.dead(
                            id,
                            id == null ? String.valueOf(key) : null,
                            "unreadable row: " + OutboxStoreException.describe(alone)));
                }
            }
            return read;
        }
    }

    private List<ClaimedRows.Row> readRows(Connection c, List<Object> keys) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(OutboxSql.withIds(readSql, keys.size()))) {
            bindKeys(ps, 1, keys);
            try (ResultSet rs = ps.executeQuery()) {
                return rows.read(rs);
            }
        }
    }

    /** @return the key as a UUID, or {@code null} when it is not one (MariaDB keeps ids as text) */
    private static UUID idOf(Object key) {
        if (key instanceof UUID id) {
            return id;
        }
        try {
            return Binder.parseCanonical(String.valueOf(key));
        } catch (IllegalArgumentException notAUuid) {
            return null;
        }
    }

    private static void bindKeys(PreparedStatement ps, int first, List<Object> keys) throws SQLException {
        int i = first;
        for (Object key : keys) {
            ps.setObject(i++, key);
        }
    }
}
