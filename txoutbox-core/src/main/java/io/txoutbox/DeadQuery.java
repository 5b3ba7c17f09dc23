package io.txoutbox;

import io.txoutbox.settings.Setting;
import java.util.UUID;

/**
 * One page of the dead-event listing, ordered by id (so by append time for UUIDv7 ids). To page, pass
 * the last id of a page as {@code after} of the next.
 *
 * @param eventType only this type, or {@code null} for all
 * @param after only ids after this one, or {@code null} to start at the beginning
 * @param limit the page size, 1 to 1,000
 */
public record DeadQuery(String eventType, UUID after, int limit) {
    /** The largest page. */
    public static final int MAX_LIMIT = 1_000;

    /** The page size: the admin API's and the actuator endpoint's {@code limit} check through it too. */
    public static final Setting<Integer> LIMIT = Setting.builder("limit", Integer.class)
            .between(1, MAX_LIMIT)
            .doc("The page size of a dead-event listing.")
            .build();

    /** Checks the page size. */
    public DeadQuery {
        LIMIT.check(limit, "DeadQuery.limit");
    }

    /**
     * @param limit the page size
     * @return the first page of all dead events
     */
    public static DeadQuery first(int limit) {
        return new DeadQuery(null, null, limit);
    }

    /**
     * @param eventType the type to keep
     * @return this query restricted to one event type
     */
    public DeadQuery ofType(String eventType) {
        return new DeadQuery(eventType, after, limit);
    }

    /**
     * @param lastId the last id of the previous page
     * @return the next page
     */
    public DeadQuery after(UUID lastId) {
        return new DeadQuery(eventType, lastId, limit);
    }
}
