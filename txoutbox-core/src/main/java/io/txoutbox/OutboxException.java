package io.txoutbox;

/**
 * The root of every exception txoutbox throws. Unchecked: a caller that cannot handle an outbox failure
 * lets it roll back the surrounding transaction, which is exactly what atomicity needs.
 */
public class OutboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the setting or field and the value
     */
    public OutboxException(String message) {
        super(message);
    }

    /**
     * @param message what failed, naming the setting or field and the value
     * @param cause the underlying failure
     */
    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
