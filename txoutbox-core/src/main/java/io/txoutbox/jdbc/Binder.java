package io.txoutbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/** Binds and reads ids and times the way one dialect stores them; reads columns by label. */
final class Binder {
    private final boolean uuidAsText;
    private final boolean utcLocalTimes;

    Binder(SqlDialect dialect) {
        this.uuidAsText = dialect.storesUuidAsText();
        this.utcLocalTimes = dialect.storesUtcLocalTimes();
    }

    void setId(PreparedStatement ps, int index, UUID id) throws SQLException {
        if (uuidAsText) {
            ps.setString(index, id.toString());
        } else {
            ps.setObject(index, id);
        }
    }

    /**
     * @throws IllegalArgumentException when a text id is not a UUID in its canonical form
     */
    UUID getId(ResultSet rs, String column) throws SQLException {
        if (uuidAsText) {
            String text = rs.getString(column);
            return text == null ? null : parseCanonical(text);
        }
        return rs.getObject(column, UUID.class);
    }

    /**
     * Only the canonical 36-character form: {@link UUID#fromString} also takes forms such as {@code
     * 1-1-1-1-1}, whose canonical text would then not match the row when it is marked.
     */
    static UUID parseCanonical(String text) {
        UUID id = UUID.fromString(text);
        if (text.length() != 36 || !id.toString().equalsIgnoreCase(text)) {
            throw new IllegalArgumentException("id is not a UUID in its canonical form");
        }
        return id;
    }

    void setTime(PreparedStatement ps, int index, Instant time) throws SQLException {
        if (utcLocalTimes) {
            ps.setObject(index, LocalDateTime.ofInstant(time, ZoneOffset.UTC));
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(time, ZoneOffset.UTC));
        }
    }

    /**
     * @return whether {@link #setTime} can bind the time: PostgreSQL's {@code -infinity} reads as a time
     *     before any that {@code java.time} can bind back at UTC
     */
    boolean canBind(Instant time) {
        try {
            LocalDateTime.ofInstant(time, ZoneOffset.UTC);
            return true;
        } catch (java.time.DateTimeException outOfRange) {
            return false;
        }
    }

    /** Binds a time, or SQL NULL (as a time with time zone) when there is none. */
    void setTimeOrNull(PreparedStatement ps, int index, Instant time) throws SQLException {
        if (time == null) {
            ps.setNull(index, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            setTime(ps, index, time);
        }
    }

    Instant getTime(ResultSet rs, String column) throws SQLException {
        if (utcLocalTimes) {
            LocalDateTime local = rs.getObject(column, LocalDateTime.class);
            return local == null ? null : local.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }

    /** Binds ids from {@code first} on. @return the next index */
    int setIds(PreparedStatement ps, int first, Iterable<UUID> ids) throws SQLException {
        int i = first;
        for (UUID id : ids) {
            setId(ps, i++, id);
        }
        return i;
    }
}
