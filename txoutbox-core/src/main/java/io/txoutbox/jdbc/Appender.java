package io.txoutbox.jdbc;

import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The producer's path: inserts validated events through the caller's connection, inside the caller's
 * transaction, with one JDBC batch. Never commits, never borrows a connection.
 */
final class Appender {
    /** Ids per DELETE of change-data-capture mode: one statement for any usual batch. */
    static final int CDC_DELETE_CHUNK = 1_000;

    private final String table;
    private final Binder bind;
    private final String insertSql;
    private final String deleteAppendedSql;
    private final boolean changeDataCapture;

    Appender(OutboxSql sql, Binder bind, boolean changeDataCapture) {
        this.table = sql.table().qualifiedName();
        this.bind = bind;
        this.insertSql = sql.render(sql.dialect().insert());
        this.deleteAppendedSql = sql.render(sql.dialect().deleteAppended());
        this.changeDataCapture = changeDataCapture;
    }

    /** See {@link io.txoutbox.spi.OutboxStore#append}. */
    void append(Connection connection, List<OutboxEvent> events, Instant now) {
        if (events.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement(insertSql)) {
            for (OutboxEvent e : events) {
                Instant availableAt =
                        e.availableAt() != null ? e.availableAt() : e.delay() != null ? now.plus(e.delay()) : now;
                bind.setId(ps, 1, e.id());
                ps.setString(2, e.aggregateType());
                ps.setString(3, e.aggregateId());
                ps.setString(4, e.eventType());
                ps.setInt(5, e.eventVersion());
                ps.setBytes(6, e.payload());
                ps.setString(7, e.contentType());
                ps.setString(8, HeadersJson.write(e.headers()));
                ps.setString(9, e.tenantId());
                ps.setString(10, e.destination());
                bind.setTime(ps, 11, now);
                bind.setTime(ps, 12, availableAt);
                if (e.maxAttempts() == null) {
                    ps.setNull(13, java.sql.Types.INTEGER);
                } else {
                    ps.setInt(13, e.maxAttempts());
                }
                if (events.size() > 1) {
                    ps.addBatch();
                }
            }
            if (events.size() > 1) {
                ps.executeBatch();
            } else {
                ps.executeUpdate();
            }
            if (changeDataCapture) {
                deleteAppended(connection, events);
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of("append", table, e);
        }
    }

    /**
     * Change-data-capture mode: the rows just inserted are deleted in the same transaction, so the
     * change stream carries each INSERT while the table stays empty (nothing to vacuum, no relay
     * needed). A connector skips the DELETEs (see the module txoutbox-debezium).
     */
    private void deleteAppended(Connection connection, List<OutboxEvent> events) throws SQLException {
        for (int from = 0; from < events.size(); from += CDC_DELETE_CHUNK) {
            List<OutboxEvent> chunk = events.subList(from, Math.min(events.size(), from + CDC_DELETE_CHUNK));
            try (PreparedStatement ps =
                    connection.prepareStatement(OutboxSql.withIds(deleteAppendedSql, chunk.size()))) {
                int i = 1;
                for (OutboxEvent e : chunk) {
                    bind.setId(ps, i++, e.id());
                }
                ps.executeUpdate();
            }
        }
    }
}
