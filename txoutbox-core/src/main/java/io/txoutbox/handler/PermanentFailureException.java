package io.txoutbox.handler;

import io.txoutbox.OutboxException;

/** Thrown by an {@link EventHandler} for an event that can never succeed: the event goes dead at once. */
public final class PermanentFailureException extends OutboxException {
    private static final long serialVersionUID = 1L;

    /** @param reason why the event can never succeed; kept as its last error */
    public PermanentFailureException(String reason) {
        super(reason);
    }

    /**
     * @param reason why the event can never succeed; kept as its last error
     * @param cause the underlying failure
     */
    public PermanentFailureException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
