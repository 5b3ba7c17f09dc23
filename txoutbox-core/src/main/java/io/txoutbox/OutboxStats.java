package io.txoutbox;

import java.time.Duration;
import java.util.Map;

/**
 * A snapshot of the outbox table, read in one query.
 *
 * @param pending events waiting to be published and not leased by a relay (includes {@code retrying}
 *     and events whose delay has not passed yet)
 * @param inFlight events leased by a relay right now
 * @param retrying pending events that failed at least once and wait for their next attempt
 * @param dead events that gave up: they wait for an operator to revive or delete them
 * @param published published events kept by a retention period (0 when published rows are deleted)
 * @param oldestPendingAge the age of the oldest unpublished (pending or in-flight) event: the real
 *     delivery delay; {@link Duration#ZERO} when there is none
 * @param byType the same counts per event type
 * @param blockedAggregates in ordered mode with {@link DeadHeadPolicy#BLOCK}: aggregates whose dead
 *     event holds back later pending events (0 otherwise)
 * @param blockedEvents pending events held back behind a dead event of their aggregate (0 otherwise)
 * @param changeDataCapture whether the outbox is in change-data-capture mode ({@code
 *     Outbox.Builder.changeDataCapture}): a connector reads the table's change stream, append deletes
 *     each row in its own transaction, and every count is 0 because no row outlives its transaction
 */
public record OutboxStats(
        long pending,
        long inFlight,
        long retrying,
        long dead,
        long published,
        Duration oldestPendingAge,
        Map<String, TypeStats> byType,
        long blockedAggregates,
        long blockedEvents,
        boolean changeDataCapture) {

    /** Copies the per-type map. */
    public OutboxStats {
        byType = Map.copyOf(byType);
    }

    /**
     * Stats of a table read by relays (not in change-data-capture mode).
     *
     * @param pending waiting and not leased
     * @param inFlight leased by a relay
     * @param retrying waiting after at least one failure
     * @param dead gave up
     * @param published kept by retention
     * @param oldestPendingAge the age of the oldest unpublished event
     * @param byType the same counts per event type
     * @param blockedAggregates aggregates held back by a dead head (ordered, {@code BLOCK})
     * @param blockedEvents pending events held back behind a dead head
     */
    public OutboxStats(
            long pending,
            long inFlight,
            long retrying,
            long dead,
            long published,
            Duration oldestPendingAge,
            Map<String, TypeStats> byType,
            long blockedAggregates,
            long blockedEvents) {
        this(
                pending,
                inFlight,
                retrying,
                dead,
                published,
                oldestPendingAge,
                byType,
                blockedAggregates,
                blockedEvents,
                false);
    }

    /**
     * Counts for one event type.
     *
     * @param pending waiting and not leased
     * @param inFlight leased by a relay
     * @param retrying waiting after at least one failure
     * @param dead gave up
     * @param published kept by retention
     */
    public record TypeStats(long pending, long inFlight, long retrying, long dead, long published) {}
}
