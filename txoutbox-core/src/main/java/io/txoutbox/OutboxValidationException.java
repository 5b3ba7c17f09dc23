package io.txoutbox;

/**
 * An event, an identifier or a setting was rejected before anything touched the database. Nothing was
 * written. {@link #field()} names what was wrong, {@link #limit()} the bound it broke (if any).
 *
 * <p>The static factories build the messages of the usual rules from the field, the value and the limit,
 * so that every rule reads the same wherever it is checked: {@code Relay.Builder.batchSize is 0; it must
 * be between 1 and 10000}. Integrations that check settings of their own use them too.
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

    /**
     * @param field the setting or field
     * @return {@code <field> is missing; it is required}
     */
    public static OutboxValidationException missing(String field) {
        return new OutboxValidationException(field, null, field + " is missing; it is required");
    }

    /**
     * The general form the other rules share.
     *
     * @param field the setting or field
     * @param value the rejected value, as it should be shown (never a payload or a header value)
     * @param rule what the value must do, for example {@code be positive}
     * @param limit the bound, for {@link #limit()}, or {@code null}
     * @return {@code <field> is <value>; it must <rule>}
     */
    public static OutboxValidationException rule(String field, Object value, String rule, String limit) {
        return new OutboxValidationException(field, limit, field + " is " + value + "; it must " + rule);
    }

    /**
     * @param field the setting or field
     * @param value the rejected value
     * @param min the smallest allowed value
     * @param max the largest allowed value
     * @return {@code <field> is <value>; it must be between <min> and <max>}, limit {@code min..max}
     */
    public static OutboxValidationException outOfRange(String field, Object value, long min, long max) {
        return rule(field, value, "be between " + min + " and " + max, min + ".." + max);
    }

    /**
     * @param field the setting or field
     * @param value the rejected value
     * @param min the smallest allowed value
     * @return {@code <field> is <value>; it must be <min> or more}, limit {@code >= min}
     */
    public static OutboxValidationException belowMinimum(String field, Object value, long min) {
        return rule(field, value, "be " + min + " or more", ">= " + min);
    }

    /**
     * @param field the setting or field
     * @param value the rejected value (zero, negative or missing)
     * @return {@code <field> is <value>; it must be positive}, limit {@code > 0}
     */
    public static OutboxValidationException notPositive(String field, Object value) {
        return rule(field, value, "be positive", "> 0");
    }

    /**
     * @param field the setting or field
     * @param value the rejected (negative) value
     * @return {@code <field> is <value>; it must not be negative}, limit {@code >= 0}
     */
    public static OutboxValidationException negative(String field, Object value) {
        return rule(field, value, "not be negative", ">= 0");
    }

    /**
     * @param field the setting or field
     * @param subject how the message names the value, for example the field and the value itself
     * @param length the value's length in characters
     * @param max the longest allowed
     * @return {@code <subject> is <length> characters; the limit is <max>}, limit {@code <max> characters}
     */
    public static OutboxValidationException tooLong(String field, String subject, int length, int max) {
        return new OutboxValidationException(
                field, max + " characters", subject + " is " + length + " characters; the limit is " + max);
    }
}
