package io.txoutbox;

import java.time.Duration;
import java.util.List;

/**
 * The operations of an outbox table: what an operator needs to watch it and to clear up after a
 * failure. Every method is one short statement in autocommit; none changes pending events.
 */
public interface OutboxAdmin {

    /** @return counts by state and type, and the age of the oldest unpublished event */
    OutboxStats stats();

    /**
     * @param query a type filter and a page
     * @return one page of dead events, by id, with their last error
     */
    List<DeadEvent> dead(DeadQuery query);

    /**
     * Puts dead events back to pending, due now, with a fresh attempt budget, and wakes the relays.
     *
     * @param selector which dead events
     * @return how many were revived
     */
    int revive(DeadSelector selector);

    /**
     * Deletes dead events for good.
     *
     * @param selector which dead events
     * @return how many were deleted
     */
    int deleteDead(DeadSelector selector);

    /**
     * Deletes published events kept by a retention period that are older than {@code age}, in batches
     * of 1,000 rows.
     *
     * @param age how long published events are kept
     * @return how many were deleted
     */
    int purgePublished(Duration age);
}
