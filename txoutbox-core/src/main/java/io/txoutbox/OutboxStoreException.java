package io.txoutbox;

import java.sql.SQLException;

/**
 * A database operation of the outbox failed. Carries the operation, the table and the SQLState, and
 * whether the failure is transient (a lost connection, a deadlock, a serialization failure, a server
 * shutting down): a transient failure is worth retrying as it is.
 */
public final class OutboxStoreException extends OutboxException {
    private static final long serialVersionUID = 1L;

    private final String operation;
    private final String sqlState;
    private final boolean isTransient;

    /**
     * @param operation what the outbox was doing, for example {@code claim}
     * @param sqlState the SQLState reported by the driver, or {@code null}
     * @param isTransient whether retrying the same operation may succeed
     * @param message the full message
     * @param cause the driver's exception
     */
    public OutboxStoreException(
            String operation, String sqlState, boolean isTransient, String message, Throwable cause) {
        super(message, cause);
        this.operation = operation;
        this.sqlState = sqlState;
        this.isTransient = isTransient;
    }

    /**
     * Converts a driver's exception: the message names the operation, the table, what the database said
     * (only where its SQLState class is known to carry no value of the statement) and the SQLState; the
     * cause is a sanitized copy of the driver's exception. Transient failures are recognised by SQLState
     * class, never by message text.
     *
     * @param operation what txoutbox was doing, for example {@code claim}
     * @param table the table it was doing it on
     * @param cause the driver's exception
     * @return the exception to throw: its message, cause chain and stack trace hold no statement value
     */
    public static OutboxStoreException of(String operation, String table, SQLException cause) {
        return SqlExceptions.translate(operation, table, cause);
    }

    /**
     * @param cause a driver's exception
     * @return a one-line description of it with no value of the statement (for a batch, of the exception
     *     behind it)
     */
    public static String describe(SQLException cause) {
        return SqlExceptions.describe(cause);
    }

    /** @return what the outbox was doing, for example {@code claim} */
    public String operation() {
        return operation;
    }

    /** @return the SQLState reported by the driver, or {@code null} */
    public String sqlState() {
        return sqlState;
    }

    /** @return whether retrying the same operation may succeed */
    public boolean isTransient() {
        return isTransient;
    }
}
