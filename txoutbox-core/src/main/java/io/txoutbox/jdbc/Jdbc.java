package io.txoutbox.jdbc;

import io.txoutbox.OutboxStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The connection and transaction plumbing of the store and the inbox, in one place: borrow a connection,
 * run a unit of work in autocommit, in one short transaction, or as a DDL script, give the connection
 * back as it was lent (auto-commit and isolation restored), and turn the driver's exceptions into {@link
 * OutboxStoreException}s.
 */
final class Jdbc {
    private final DataSource dataSource;
    private final String table;

    /**
     * @param dataSource where connections come from
     * @param table the table the work is on, for messages
     */
    Jdbc(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    /** A unit of work on one connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs the work in autocommit mode on a borrowed connection.
     *
     * @param operation what the work does, for messages ({@code claim}, {@code stats})
     * @param work the work
     * @return what the work returned
     */
    <T> T autocommit(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            if (!auto) {
                c.setAutoCommit(true);
            }
            try {
                return work.run(c);
            } finally {
                if (!auto) {
                    c.setAutoCommit(false);
                }
            }
        } catch (SQLException e) {
            throw translate(operation, e);
        }
    }

    /**
     * Runs the work in one short transaction on a borrowed connection, at READ COMMITTED; rolls back if
     * it fails. READ COMMITTED matters on MariaDB and MySQL: at their default REPEATABLE READ a locking
     * read also locks the gaps of the index range it scanned, which blocks (and deadlocks) the inserts
     * of producers appending at the same time.
     *
     * @param operation what the work does, for messages
     * @param work the work
     * @return what the work returned
     */
    <T> T transaction(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            if (auto) {
                c.setAutoCommit(false);
            }
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            } finally {
                if (auto) {
                    c.setAutoCommit(true);
                }
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    c.setTransactionIsolation(isolation);
                }
            }
        } catch (SQLException e) {
            throw translate(operation, e);
        }
    }

    /**
     * Runs DDL scripts on one borrowed connection, each in one transaction where the database allows it.
     * A script is statements separated by a semicolon at the end of a line followed by a blank line;
     * comment-only parts are skipped.
     *
     * @param operation what the scripts do, for messages
     * @param scripts the scripts, in order
     */
    void scripts(String operation, String... scripts) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            try {
                for (String script : scripts) {
                    c.setAutoCommit(false);
                    try (Statement st = c.createStatement()) {
                        for (String statement : script.split(";\\s*\\n\\s*\\n")) {
                            String sql = statement.strip();
                            if (sql.endsWith(";")) {
                                sql = sql.substring(0, sql.length() - 1);
                            }
                            if (!sql.lines()
                                    .allMatch(l -> l.isBlank() || l.strip().startsWith("--"))) {
                                st.execute(sql);
                            }
                        }
                        c.commit();
                    } catch (SQLException e) {
                        c.rollback();
                        throw e;
                    }
                }
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw translate(operation, e);
        }
    }

    /**
     * @param operation what failed
     * @param e the driver's exception
     * @return the exception to throw, naming the operation and the table, with no statement value
     */
    OutboxStoreException translate(String operation, SQLException e) {
        return OutboxStoreException.of(operation, table, e);
    }
}
