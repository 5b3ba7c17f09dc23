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

    /**
     * The most header text a claim reads of one row: no event that append accepts comes near it (64
     * headers of at most 128 + 8,192 characters, at most 3 bytes each in UTF-8, is under 1.6 MiB), so a
     * row beyond it was written by another program and goes dead unread, and no claim reads tens of
     * megabytes of header text for a budget of one.
     */
    static final long MAX_HEADERS_BYTES = 2L * 1024 * 1024;

    /** The most attempts any relay allows, for a row's own {@code max_attempts} (as append checks it). */
    static final int MAX_ATTEMPTS = 1_000;

    private final OutboxTable.Columns columns;
    private final Binder bind;
    private final String quarantineSql;

    ClaimedRows(OutboxSql sql, Binder bind) {
        this.columns = sql.table().columns();
        this.bind = bind;
        this.quarantineSql = sql.render(sql.dialect().quarantine());
    }

    /**
     * One claimed row: an event, or why it goes dead (with its id, or without one the raw key to quarantine
     * it by), or ({@code alone}) a row too large to read in the batch, to be read by itself.
     */
    record Row(ClaimedEvent event, UUID id, String rawKey, String reason, boolean alone) {
        static Row of(ClaimedEvent event) {
            return new Row(event, event.id(), null, null, false);
        }

        static Row dead(UUID id, String rawKey, String reason) {
            return new Row(null, id, rawKey, reason, false);
        }

        static Row alone(UUID id) {
            return new Row(null, id, null, null, true);
        }
    }

    /** What else a claim reads of each of its rows, before the row is turned into an event. */
    interface EachRow {
        void accept(ResultSet rs) throws SQLException;
    }

    /** Reads every row of a result of the claimed columns. */
    List<Row> read(ResultSet rs) throws SQLException {
        return read(rs, row -> {}, false, MAX_ATTEMPTS);
    }

    /**
     * Reads every row of a claim's result that also has the labels of {@link PostgresClaimSql#CLAIM_FLAGS},
     * showing each to {@code each} first: a row the claim did not read is dead with its reason, or read
     * alone.
     *
     * @param budget the relay's attempt budget, for rows without one of their own
     */
    List<Row> readFlagged(ResultSet rs, EachRow each, int budget) throws SQLException {
        return read(rs, each, true, budget);
    }

    private List<Row> read(ResultSet rs, EachRow each, boolean flagged, int budget) throws SQLException {
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
            each.accept(rs);
            UUID id;
            try {
                id = bind.getId(rs, "id");
            } catch (SQLException | RuntimeException bad) {
                rows.add(Row.dead(null, rs.getString("id"), "unreadable row: id is not a UUID"));
                continue;
            }
            if (id == null) {
                rows.add(Row.dead(null, null, "unreadable row: column '" + columns.id() + "' is NULL"));
                continue;
            }
            try {
                if (flagged && rs.getBoolean("unread")) {
                    rows.add(notRead(rs, id, null, rs.getBoolean("spent"), rs.getLong("header_bytes"), budget));
                } else {
                    rows.add(Row.of(event(id, rs)));
                }
            } catch (SQLException bad) {
                rows.add(Row.dead(id, null, "unreadable row: " + OutboxStoreException.describe(bad)));
            } catch (RuntimeException bad) {
                rows.add(Row.dead(id, null, "unreadable row: " + reason(bad)));
            }
        }
        return rows;
    }

    /**
     * A row whose payload and headers a claim does not read: its attempt budget is spent (it goes dead
     * saying so: its attempts did not end in a mark, as a row that cannot be read), its headers are beyond
     * {@link #MAX_HEADERS_BYTES} (dead naming the limit), or else it is larger than the byte budget (read
     * alone). Reads the labels {@code attempts} and {@code max_attempts} of the row.
     *
     * @param id the row's id, or {@code null} when it is not a UUID
     * @param rawKey the row's key as text, when its id is not a UUID
     * @param budget the relay's attempt budget, for rows without one of their own
     */
    Row notRead(ResultSet rs, UUID id, String rawKey, boolean spent, long headerBytes, int budget) throws SQLException {
        if (spent) {
            long attempts = rs.getLong("attempts");
            long max = rs.getLong("max_attempts");
            boolean noMax = rs.wasNull();
            if (!noMax && max < 1) {
                return Row.dead(
                        id,
                        rawKey,
                        // The words of append's own rule, which the row would have broken there.
                        "unreadable row: OutboxEvent.maxAttempts is " + max + "; it must be between 1 and "
                                + MAX_ATTEMPTS);
            }
            return Row.dead(
                    id,
                    rawKey,
                    "gave up after " + attempts + " attempts (the budget is " + (noMax ? budget : max)
                            + ") whose last did not end in a mark: the row could not be read, or its relay"
                            + " stopped first");
        }
        if (headerBytes > MAX_HEADERS_BYTES) {
            return Row.dead(
                    id,
                    rawKey,
                    "unreadable row: headers are " + headerBytes + " bytes; the limit is " + MAX_HEADERS_BYTES
                            + " bytes");
        }
        return Row.alone(id);
    }

    /**
     * Marks rows whose id cannot be read dead by their raw key, fenced by the owner, in the claim's
     * connection, and sorts the rest oldest first. Rows to read alone are left out.
     */
    ClaimResult settle(Connection c, List<Row> rows, String owner) throws SQLException {
        if (rows.isEmpty()) {
            return ClaimResult.EMPTY;
        }
        List<ClaimedEvent> events = new ArrayList<>(rows.size());
        Map<UUID, String> unreadable = new HashMap<>();
        List<String> quarantined = new ArrayList<>();
        for (Row row : rows) {
            if (row.alone()) {
                continue;
            }
            if (row.event() != null) {
                events.add(row.event());
            } else if (row.id() != null) {
                unreadable.put(row.id(), row.reason());
            } else {
                if (row.rawKey() != null) {
                    try (PreparedStatement ps = c.prepareStatement(quarantineSql)) {
                        ps.setString(1, row.reason());
                        ps.setString(2, row.rawKey());
                        ps.setString(3, owner);
                        ps.executeUpdate();
                    }
                }
                quarantined.add(columns.id() + " '" + LogText.escape(row.rawKey(), 80) + "': " + row.reason());
            }
        }
        events.sort(ORDER);
        return new ClaimResult(events, unreadable, quarantined);
    }

    private static final Comparator<ClaimedEvent> ORDER =
            Comparator.comparing(ClaimedEvent::createdAt).thenComparing(ClaimedEvent::id);

    /** @return both claims' rows as one, events oldest first */
    static ClaimResult merge(ClaimResult a, ClaimResult b) {
        if (b.size() == 0) {
            return a;
        }
        if (a.size() == 0) {
            return b;
        }
        List<ClaimedEvent> events = new ArrayList<>(a.events());
        events.addAll(b.events());
        events.sort(ORDER);
        Map<UUID, String> unreadable = new HashMap<>(a.unreadable());
        unreadable.putAll(b.unreadable());
        List<String> quarantined = new ArrayList<>(a.quarantined());
        quarantined.addAll(b.quarantined());
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
