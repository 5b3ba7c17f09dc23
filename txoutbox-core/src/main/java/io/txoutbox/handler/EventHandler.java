package io.txoutbox.handler;

import io.txoutbox.spi.ClaimedEvent;

/**
 * Handles one event in this process. Returning normally means done (published); throwing means retry
 * later with backoff, unless the exception is a {@link PermanentFailureException}, which makes the event
 * dead at once. Handlers must be idempotent: at-least-once delivery may hand them an event twice.
 */
@FunctionalInterface
public interface EventHandler {
    /**
     * @param event the event
     * @throws Exception to retry the event later, or {@link PermanentFailureException} to give it up
     */
    void handle(ClaimedEvent event) throws Exception;
}
