package io.txoutbox.webhook;

import io.txoutbox.OutboxException;

/**
 * A webhook request failed verification: answer it with 4xx (401 is customary) and do not act on it.
 * {@link #problem()} says what was wrong; the message never contains a secret or the body.
 */
public final class WebhookVerificationException extends OutboxException {
    private static final long serialVersionUID = 1L;

    /** What was wrong with a request. */
    public enum Problem {
        /** A {@code webhook-id}, {@code webhook-timestamp} or {@code webhook-signature} header is missing. */
        MISSING_HEADER,
        /** {@code webhook-timestamp} is not Unix seconds. */
        MALFORMED_TIMESTAMP,
        /** {@code webhook-timestamp} is older than the tolerance: a replay, or a very late delivery. */
        STALE_TIMESTAMP,
        /** {@code webhook-timestamp} is further in the future than the tolerance. */
        FUTURE_TIMESTAMP,
        /** {@code webhook-signature} holds no {@code v1,<base64>} entry. */
        MALFORMED_SIGNATURE,
        /** No signature matches: the body, id or timestamp changed, or the sender used a secret we do not know. */
        SIGNATURE_MISMATCH
    }

    private final Problem problem;

    /**
     * @param problem what was wrong
     * @param message the details, never a secret or the body
     */
    public WebhookVerificationException(Problem problem, String message) {
        super(message);
        this.problem = problem;
    }

    /** @return what was wrong */
    public Problem problem() {
        return problem;
    }
}
