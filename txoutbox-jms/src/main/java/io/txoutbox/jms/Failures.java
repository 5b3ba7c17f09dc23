package io.txoutbox.jms;

import io.txoutbox.internal.transport.Errors;
import io.txoutbox.spi.PublishOutcome;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.ResourceAllocationRuntimeException;

/**
 * Decides what a failed send means for its event. A destination that is invalid or missing, a message
 * the provider cannot carry and a send the user may not make are dead; everything else may pass and
 * is retried.
 */
final class Failures {
    private Failures() {}

    static PublishOutcome of(Throwable error, String destination) {
        if (error instanceof InvalidDestinationException || error instanceof InvalidDestinationRuntimeException) {
            return PublishOutcome.dead("JMS destination " + destination + " is not valid or does not exist: "
                    + Errors.withRootCause(error) + "; create it, then revive the event");
        }
        if (error instanceof MessageFormatException || error instanceof MessageFormatRuntimeException) {
            return PublishOutcome.dead(
                    "the JMS provider refused the message for " + destination + ": " + Errors.withRootCause(error));
        }
        if (error instanceof JMSSecurityException || error instanceof JMSSecurityRuntimeException) {
            return PublishOutcome.dead("not allowed to send to JMS destination " + destination + ": "
                    + Errors.withRootCause(error) + "; grant it, then revive the event");
        }
        if (error instanceof ResourceAllocationException || error instanceof ResourceAllocationRuntimeException) {
            return PublishOutcome.retry("the JMS provider has no room for the message on " + destination + ": "
                    + Errors.withRootCause(error));
        }
        return PublishOutcome.retry(
                "send to JMS destination " + destination + " failed: " + Errors.withRootCause(error));
    }

    /** @return whether the session that saw this failure may be broken (anything but a refusal of one message) */
    static boolean breaksSession(Throwable error) {
        return !(error instanceof InvalidDestinationException
                || error instanceof InvalidDestinationRuntimeException
                || error instanceof MessageFormatException
                || error instanceof MessageFormatRuntimeException
                || error instanceof JMSSecurityException
                || error instanceof JMSSecurityRuntimeException
                || error instanceof ResourceAllocationException
                || error instanceof ResourceAllocationRuntimeException
                || error instanceof IllegalArgumentException);
    }
}
