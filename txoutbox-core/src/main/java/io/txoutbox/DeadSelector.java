package io.txoutbox;

import java.util.Collection;
import java.util.Set;
import java.util.UUID;

/**
 * Which dead events an operation (revive, delete) applies to: some ids, one type, or all.
 *
 * @param ids the ids, or {@code null} for any id
 * @param eventType the type, or {@code null} for any type
 */
public record DeadSelector(Set<UUID> ids, String eventType) {
    /** Copies the ids. */
    public DeadSelector {
        ids = ids == null ? null : Set.copyOf(ids);
    }

    /**
     * @param ids the dead events to select
     * @return a selector of exactly these ids (ids that are not dead are left alone)
     */
    public static DeadSelector ids(Collection<UUID> ids) {
        return new DeadSelector(Set.copyOf(ids), null);
    }

    /**
     * @param eventType the type to select
     * @return a selector of every dead event of this type
     */
    public static DeadSelector type(String eventType) {
        if (eventType == null || eventType.isBlank()) {
            throw new OutboxValidationException(
                    "DeadSelector.eventType", null, "DeadSelector.eventType is missing; name a type or use all()");
        }
        return new DeadSelector(null, eventType);
    }

    /** @return a selector of every dead event */
    public static DeadSelector all() {
        return new DeadSelector(null, null);
    }
}
