package io.txoutbox.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.h2.jdbcx.JdbcDataSource;

/** An in-memory H2 database of one test: real SQL, nothing to start, dropped by {@link #drop()}. */
final class H2Database {
    final JdbcDataSource dataSource = new JdbcDataSource();

    H2Database() {
        dataSource.setURL("jdbc:h2:mem:core_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ";DB_CLOSE_DELAY=-1");
    }

    void execute(String sql) {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** @return the first column of the first row, as text, or {@code null} */
    String text(String sql, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    long count(String sql, Object... args) {
        return Long.parseLong(text(sql, args));
    }

    /** Inserts a row as a program other than txoutbox would, with the defaults of the table. */
    UUID insertRaw(String table, String type, String headers) {
        UUID id = UUID.randomUUID();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + table
                                + " (id, aggregate_type, aggregate_id, event_type, payload, headers, available_at)"
                                + " VALUES (?, 'order', 'o-1', ?, X'7B7D', ?, TIMESTAMP WITH TIME ZONE '2000-01-01 00:00:00Z')")) {
            ps.setObject(1, id);
            ps.setString(2, type);
            ps.setString(3, headers);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return id;
    }

    void drop() {
        execute("DROP ALL OBJECTS");
    }
}
