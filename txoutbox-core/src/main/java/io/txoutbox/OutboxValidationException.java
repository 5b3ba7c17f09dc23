package io.txoutbox;

/**
 * An event, an identifier or a setting was rejected before anything touched the database. Nothing was
 * written. {@link #field()} names what was wrong, {@link #limit()} the bound it broke (if any).
 */
public final class OutboxValidationException extends OutboxException {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final String limit;

    /**
     * @param field the field or setting that was rejected, for example {@code OutboxEvent.payload}
     * @param limit the bound it broke, or {@code null} when the problem is not a bound
     * @param message the full message, naming the field, the value's size and the limit
     */
    public OutboxValidationException(String field, String limit, String message) {
        super(message);
        this.field = field;
        this.limit = limit;
    }

    /** @return the field or setting that was rejected, for example {@code OutboxEvent.payload} */
    public String field() {
        return field;
    }

    /** @return the bound that was broken, or {@code null} when the problem is not a bound */
    public String limit() {
        return limit;
    }
}
