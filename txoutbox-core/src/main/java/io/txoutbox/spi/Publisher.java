package io.txoutbox.spi;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Sends claimed events to a broker (or to in-process handlers). Implement one per transport.
 *
 * <p>The contract: the returned stage completes with exactly one outcome per event, in the order of
 * {@code batch}, and reports {@link Outcome#PUBLISHED} only after the broker confirmed that event. A
 * stage that completes exceptionally, a synchronous exception (an {@code Error} too), or a batch that
 * is not confirmed within the relay's publish timeout makes every event of the batch a retry. The
 * timeout counts from the call, so a publisher that blocks before it returns (a connection being set
 * up) is timed too; a stage the relay gave up on is cancelled. Connect when built or started, not in
 * {@code publish()}. The relay never holds a database transaction open while it waits.
 *
 * <p>Each relay calls its publisher from a publish thread of its own ({@code txoutbox-publish-<name>},
 * or its thread factory's), one call at a time, but several relays may share one publisher: make it
 * thread-safe.
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

    /**
     * Publishes a batch in parts that are confirmed independently, for a publisher that sends one batch to
     * several brokers or routes: the relay marks each part as soon as it completes, and may claim the
     * next batch while a slow part is still out (a bounded number of such batches per relay, each within
     * the publish timeout and its lease kept), so that one slow destination does not hold back the
     * others. The parts must hold every position of the batch exactly once; a batch whose parts do not
     * is retried as a whole. The default is one part, {@link #publish}: today's behaviour.
     *
     * @param batch the claimed events, never empty
     * @return the parts, together holding each position of the batch once
     */
    default List<PublishPart> publishParts(List<ClaimedEvent> batch) {
        return List.of(PublishPart.whole(batch.size(), publish(batch)));
    }

    /** Releases what the publisher created. The relay never calls it: whoever built the publisher does. */
    @Override
    default void close() {}
}
