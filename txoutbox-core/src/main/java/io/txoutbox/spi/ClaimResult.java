package io.txoutbox.spi;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What one claim returned: the events to publish, the rows that were claimed but could not be read (a
 * row written by another program with a malformed column), each with the reason, and the rows whose
 * very id could not be read. The relay marks the unreadable rows dead at once so they never loop; the
 * store has already marked the quarantined ones dead by their key, since no mark by id can reach them.
 *
 * @param events the readable events, oldest first
 * @param unreadable the ids of unreadable rows, with why each could not be read
 * @param quarantined one line per row whose id could not be read (its raw key, escaped, and why), already
 *     marked dead by the store
 */
public record ClaimResult(List<ClaimedEvent> events, Map<UUID, String> unreadable, List<String> quarantined) {
    /** An empty claim. */
    public static final ClaimResult EMPTY = new ClaimResult(List.of(), Map.of(), List.of());

    /** Copies the collections. */
    public ClaimResult {
        events = List.copyOf(events);
        unreadable = Map.copyOf(unreadable);
        quarantined = List.copyOf(quarantined);
    }

    /**
     * A claim with no quarantined rows.
     *
     * @param events the readable events, oldest first
     * @param unreadable the ids of unreadable rows, with why each could not be read
     */
    public ClaimResult(List<ClaimedEvent> events, Map<UUID, String> unreadable) {
        this(events, unreadable, List.of());
    }

    /** @return how many rows were claimed, readable or not */
    public int size() {
        return events.size() + unreadable.size() + quarantined.size();
    }
}
