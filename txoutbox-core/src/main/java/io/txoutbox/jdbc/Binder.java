package io.txoutbox.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/** Binds and reads ids and times the way one dialect stores them. */
final class Binder {
    private final SqlDialect dialect;

    Binder(SqlDialect dialect) {
        this.dialect = dialect;
    }

    void setId(PreparedStatement ps, int index, UUID id) throws SQLException {
        if (dialect.uuidAsText()) {
            ps.setString(index, id.toString());
        } else {
            ps.setObject(index, id);
        }
    }

    UUID getId(ResultSet rs, int index) throws SQLException {
        if (dialect.uuidAsText()) {
            String text = rs.getString(index);
            return text == null ? null : parseCanonical(text);
        }
        return rs.getObject(index, UUID.class);
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
        if (dialect.timestamps() == SqlDialect.TimeCodec.UTC_LOCAL) {
            ps.setObject(index, LocalDateTime.ofInstant(time, ZoneOffset.UTC));
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(time, ZoneOffset.UTC));
        }
    }

    Instant getTime(ResultSet rs, int index) throws SQLException {
        if (dialect.timestamps() == SqlDialect.TimeCodec.UTC_LOCAL) {
            LocalDateTime local = rs.getObject(index, LocalDateTime.class);
            return local == null ? null : local.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime time = rs.getObject(index, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }

    static String placeholders(int n) {
        StringBuilder sb = new StringBuilder(n * 3);
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "?" : ", ?");
        }
        return sb.toString();
    }
}
