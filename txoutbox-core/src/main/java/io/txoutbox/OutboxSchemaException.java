package io.txoutbox;

/**
 * The outbox (or inbox) table is missing or does not have the shape this version expects. Thrown at
 * start-up, from {@code build()}, so that a misconfigured service fails before it takes traffic.
 */
public final class OutboxSchemaException extends OutboxException {
    private static final long serialVersionUID = 1L;

    private final String table;

    /**
     * @param table the table that was checked
     * @param message what is wrong and how to fix it
     */
    public OutboxSchemaException(String table, String message) {
        super(message);
        this.table = table;
    }

    /** @return the table that was checked */
    public String table() {
        return table;
    }
}
