package io.txoutbox.jdbc;

import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns claimed rows into events, each on its own and by column name (the labels {@link SqlDialect}
 * gives the claimed columns): a row that cannot be read becomes a reason, never an exception for the
 * whole claim, so one bad row cannot stop a table. Rows written by other programs pass the same shape
 * rules as an append.
 */
final class ClaimedRows {
    private static final byte[] EMPTY = new byte[0];

    private final OutboxTable.Columns columns;
    private final Binder bind;
    private final String quarantineSql;

    ClaimedRows(OutboxSql sql, Binder bind) {
        this.columns = sql.table().columns();
        this.bind = bind;
        this.quarantineSql = sql.render(sql.dialect().quarantine());
    }

    /** One claimed row: an event, or why it could not be read, or (no id) the raw key to quarantine it by. */
    record Row(ClaimedEvent event, UUID id, String rawKey, String problem) {}

    /** What else a claim reads of each of its rows, before the row is turned into an event. */
    interface EachRow {
        void accept(ResultSet rs) throws SQLException;
    }

    /** Reads every row of a claim's result. */
    List<Row> read(ResultSet rs) throws SQLException {
        return read(rs, row -> {});
    }

    /** Reads every row of a claim's result, showing each to {@code each} first. */
    List<Row> read(ResultSet rs, EachRow each) throws SQLException {
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
            each.accept(rs);
            UUID id;
            try {
                id = bind.getId(rs, "id");
            } catch (SQLException | RuntimeException bad) {
                rows.add(new Row(null, null, rs.getString("id"), "id is not a UUID"));
                continue;
            }
            if (id == null) {
                rows.add(new Row(null, null, null, "column '" + columns.id() + "' is NULL"));
                continue;
            }
            try {
                rows.add(new Row(event(id, rs), id, null, null));
            } catch (SQLException bad) {
                rows.add(new Row(null, id, null, OutboxStoreException.describe(bad)));
            } catch (RuntimeException bad) {
                rows.add(new Row(null, id, null, reason(bad)));
            }
        }
        return rows;
    }

    /**
     * Marks rows whose id cannot be read dead by their raw key, fenced by the owner, in the claim's
     * connection, and sorts the rest oldest first.
     */
    ClaimResult settle(Connection c, List<Row> rows, String owner) throws SQLException {
        if (rows.isEmpty()) {
            return ClaimResult.EMPTY;
        }
        List<ClaimedEvent> events = new ArrayList<>(rows.size());
        Map<UUID, String> unreadable = new HashMap<>();
        List<String> quarantined = new ArrayList<>();
        for (Row row : rows) {
            if (row.event() != null) {
                events.add(row.event());
            } else if (row.id() != null) {
                unreadable.put(row.id(), "unreadable row: " + row.problem());
            } else {
                String reason = "unreadable row: " + row.problem();
                if (row.rawKey() != null) {
                    try (PreparedStatement ps = c.prepareStatement(quarantineSql)) {
                        ps.setString(1, reason);
                        ps.setString(2, row.rawKey());
                        ps.setString(3, owner);
                        ps.executeUpdate();
                    }
                }
                quarantined.add(columns.id() + " '" + LogText.escape(row.rawKey(), 80) + "': " + reason);
            }
        }
        events.sort(Comparator.comparing(ClaimedEvent::createdAt).thenComparing(ClaimedEvent::id));
        return new ClaimResult(events, unreadable, quarantined);
    }

    private ClaimedEvent event(UUID id, ResultSet rs) throws SQLException {
        String aggregateType = required(rs.getString("aggregate_type"), columns.aggregateType());
        String aggregateId = required(rs.getString("aggregate_id"), columns.aggregateId());
        String eventType = required(rs.getString("event_type"), columns.eventType());
        int version = rs.getInt("event_version");
        required(rs.wasNull() ? null : version, "event_version");
        byte[] payload = required(rs.getBytes("payload"), columns.payload());
        String contentType = required(rs.getString("content_type"), "content_type");
        Map<String, String> headers = HeadersJson.read(rs.getString("headers"));
        String tenant = rs.getString("tenant_id");
        String destination = rs.getString("destination");
        Instant created = bind.getTime(rs, "created_at");
        int attempt = rs.getInt("attempts");
        required(rs.wasNull() ? null : attempt, "attempts");
        int maxAttempts = rs.getInt("max_attempts");
        boolean noMax = rs.wasNull();
        ClaimedEvent event = new ClaimedEvent(
                id,
                aggregateType,
                aggregateId,
                eventType,
                version,
                payload,
                contentType,
                headers,
                tenant,
                destination,
                created == null ? Instant.EPOCH : created,
                attempt,
                noMax ? null : maxAttempts);
        checkRow(event);
        return event;
    }

    private static <T> T required(T value, String column) {
        if (value == null) {
            throw new IllegalArgumentException("column '" + column + "' is NULL; txoutbox needs a value");
        }
        return value;
    }

    /**
     * A row written by another program passes the same shape rules as an append (required text present
     * and not blank, lengths, characters, version, header bounds, attempt budget), so a broker never
     * receives what txoutbox itself would have refused; a row that breaks one goes dead naming the rule.
     * The payload is relayed as it is: the relay does not parse payloads.
     */
    private static void checkRow(ClaimedEvent e) {
        if (e.attempt() < 1) {
            throw new IllegalArgumentException("attempts is negative (" + (e.attempt() - 1) + ")");
        }
        try {
            OutboxEvent.builder(e.eventType())
                    .id(e.id())
                    .aggregate(e.aggregateType(), e.aggregateId())
                    .version(e.eventVersion())
                    .payload(EMPTY, e.contentType())
                    .tenant(e.tenantId())
                    .destination(e.destination())
                    .headers(e.headers())
                    .maxAttempts(e.maxAttempts())
                    .build();
        } catch (OutboxValidationException invalid) {
            throw new IllegalArgumentException(invalid.getMessage(), invalid);
        }
    }

    /** Why a row could not be read, from an exception of txoutbox's reading code. */
    private static String reason(RuntimeException bad) {
        if (bad instanceof IllegalArgumentException && bad.getMessage() != null) {
            return bad.getMessage();
        }
        return bad.getClass().getSimpleName()
                + (bad.getMessage() == null ? "" : ": " + LogText.escape(bad.getMessage(), 200));
    }
}
