package io.txoutbox.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Plain JDBC for tests that look at the database behind the outbox: a number read with one query
 * ({@link #count}), one statement run ({@link #execute}). Each call takes a connection from the data
 * source (in auto-commit, as pools hand them out by default) and closes it before it returns. A failure
 * is an {@link IllegalStateException} whose message starts with the SQL, with the {@link SQLException}
 * as its cause.
 *
 * <pre>{@code
 * long dead = Sql.count(dataSource, "SELECT count(*) FROM outbox WHERE status = ?", "dead");
 * long one = Sql.count(mariaDb, Sql.Binder.UUIDS_AS_TEXT, "SELECT count(*) FROM outbox WHERE id = ?", event.id());
 * }</pre>
 */
public final class Sql {
    private Sql() {}

    /**
     * How a query's arguments are bound, for a database that stores a Java type its own way.
     */
    @FunctionalInterface
    public interface Binder {
        /** Binds every argument with {@link PreparedStatement#setObject(int, Object)}. */
        Binder OBJECTS = PreparedStatement::setObject;

        /**
         * Binds a {@link UUID} as its text ({@link PreparedStatement#setString}), every other argument
         * with {@code setObject}: for MariaDB and MySQL, where the outbox keeps ids as text and the driver
         * cannot bind a {@code UUID}.
         */
        Binder UUIDS_AS_TEXT = (statement, index, value) -> {
            if (value instanceof UUID id) {
                statement.setString(index, id.toString());
            } else {
                statement.setObject(index, value);
            }
        };

        /**
         * @param statement the statement being prepared
         * @param index the parameter's position, from 1
         * @param value the argument, possibly {@code null}
         * @throws SQLException when the driver refuses it
         */
        void bind(PreparedStatement statement, int index, Object value) throws SQLException;
    }

    /**
     * Runs a query with arguments bound by {@link Binder#OBJECTS}.
     *
     * @param dataSource where the connection comes from
     * @param sql a query whose first column is a number, such as {@code SELECT count(*) FROM ...}
     * @param args the values of its {@code ?} parameters, in order
     * @return the first column of the first row
     * @throws IllegalStateException when the query fails or returns no row
     */
    public static long count(DataSource dataSource, String sql, Object... args) {
        return count(dataSource, Binder.OBJECTS, sql, args);
    }

    /**
     * Runs a query with arguments bound by the binder.
     *
     * @param dataSource where the connection comes from
     * @param binder how each argument is bound
     * @param sql a query whose first column is a number, such as {@code SELECT count(*) FROM ...}
     * @param args the values of its {@code ?} parameters, in order
     * @return the first column of the first row
     * @throws IllegalStateException when the query fails or returns no row
     */
    public static long count(DataSource dataSource, Binder binder, String sql, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                binder.bind(ps, i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException(sql + ": no row");
                }
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs one statement without parameters (DDL, a {@code DELETE}), in auto-commit.
     *
     * @param dataSource where the connection comes from
     * @param sql the statement
     * @throws IllegalStateException when it fails
     */
    public static void execute(DataSource dataSource, String sql) {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
