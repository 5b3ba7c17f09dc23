package io.txoutbox;

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
