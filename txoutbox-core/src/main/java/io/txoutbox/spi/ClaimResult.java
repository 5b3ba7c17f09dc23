package io.txoutbox.spi;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What one claim returned: the events to publish, and the rows that were claimed but could not be read
 * (a row written by another program with a malformed column), each with the reason. The relay marks the
 * unreadable rows dead at once so they never loop.
 *
 * @param events the readable events, oldest first
 * @param unreadable the ids of unreadable rows, with why each could not be read
 */
public record ClaimResult(List<ClaimedEvent> events, Map<UUID, String> unreadable) {
    /** An empty claim. */
    public static final ClaimResult EMPTY = new ClaimResult(List.of(), Map.of());

    /** Copies both collections. */
    public ClaimResult {
        events = List.copyOf(events);
        unreadable = Map.copyOf(unreadable);
    }

    /** @return how many rows were claimed, readable or not */
    public int size() {
        return events.size() + unreadable.size();
    }
}
