package io.txoutbox.nats;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamStatusException;
import io.nats.client.support.Status;
import io.txoutbox.internal.transport.Errors;
import io.txoutbox.spi.PublishOutcome;

/** Decides what a failed JetStream publish means for its event. */
final class Failures {
    private Failures() {}

    static PublishOutcome of(Throwable error, String subject) {
        Throwable e = Errors.unwrap(error);
        if (isNoResponders(e)) {
            // No stream captures the subject (or JetStream is still restoring it after a restart): a
            // stream may appear, so this is a retry, and the event goes dead after its last attempt.
            return PublishOutcome.retry("no JetStream stream listens on subject " + subject
                    + " (503 no responders): create a stream for it");
        }
        if (e instanceof JetStreamApiException api) {
            return PublishOutcome.retry("JetStream refused the message on subject " + subject + ": "
                    + api.getErrorDescription() + " (code " + api.getErrorCode() + ", api code "
                    + api.getApiErrorCode() + ")");
        }
        return PublishOutcome.retry("publish to NATS failed on subject " + subject + ": " + Errors.describe(e));
    }

    /**
     * The client reports a 503 to a JetStream publish as an exception whose text is its own {@link
     * Status#NO_RESPONDERS_TEXT}, with no status object to inspect. Only the reason depends on this
     * match: a no-responders failure and any other failure are both retries.
     */
    private static boolean isNoResponders(Throwable error) {
        for (Throwable e = error; e != null; e = e.getCause()) {
            if (e instanceof JetStreamStatusException status
                    && status.getStatus().getCode() == Status.NO_RESPONDERS_CODE) {
                return true;
            }
            if (e.getMessage() != null && e.getMessage().contains(Status.NO_RESPONDERS_TEXT)) {
                return true;
            }
        }
        return false;
    }
}
