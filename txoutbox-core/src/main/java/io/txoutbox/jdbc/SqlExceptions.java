package io.txoutbox.jdbc;

import io.txoutbox.OutboxStoreException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * The one place where {@link SQLException}s become {@link OutboxStoreException}s. Transient failures are
 * recognised by SQLState class (never by message text): connection exceptions (08), transaction rollbacks
 * such as serialization failures and deadlocks (40), insufficient resources (53), operator intervention
 * such as a server shutdown or a terminated backend (57), and lock-not-available (55P03).
 */
public final class SqlExceptions {
    private SqlExceptions() {}

    /**
     * @param operation what txoutbox was doing, for example {@code claim}
     * @param table the table it was doing it on
     * @param e the driver's exception
     * @return the exception to throw
     */
    public static OutboxStoreException translate(String operation, String table, SQLException e) {
        String state = e.getSQLState();
        boolean isTransient = isTransient(e);
        String message = "txoutbox " + operation + " on table '" + table + "' failed: " + e.getMessage() + " (SQLState "
                + state + (isTransient ? ", transient" : "") + ")";
        return new OutboxStoreException(operation, state, isTransient, message, e);
    }

    /**
     * @param e a driver exception
     * @return whether the same operation may succeed if retried
     */
    public static boolean isTransient(SQLException e) {
        if (e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null || state.length() < 2) {
            return false;
        }
        String cls = state.substring(0, 2);
        return cls.equals("08")
                || cls.equals("40")
                || cls.equals("53")
                || cls.equals("57")
                || state.equals("55P03")
                || state.equals("HYT00");
    }
}
