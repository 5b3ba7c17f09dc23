package io.txoutbox.spi;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Sends claimed events to a broker (or to in-process handlers). Implement one per transport.
 *
 * <p>The contract: the returned stage completes with exactly one outcome per event, in the order of
 * {@code batch}, and reports {@link Outcome#PUBLISHED} only after the broker confirmed that event. A
 * stage that completes exceptionally, a synchronous exception, or a stage that does not complete
 * within the relay's publish timeout makes every event of the batch a retry. The relay never holds a
 * database transaction open while it waits.
 *
 * <p>Publishers are called from one relay thread at a time, but several relays may share one
 * publisher: make it thread-safe.
 */
@FunctionalInterface
public interface Publisher extends AutoCloseable {

    /**
     * Publishes a batch asynchronously.
     *
     * @param batch the claimed events, never empty
     * @return a stage completing with one outcome per event, in batch order
     */
    CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch);

    /** Releases what the publisher created. The relay never calls it: whoever built the publisher does. */
    @Override
    default void close() {}
}
