package io.txoutbox.internal.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxValidationException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The JSON of the admin records, as the relay server's admin API ({@code /api/sources/{s}/stats},
 * {@code /dead}) and the Spring starter's actuator endpoint ({@code /actuator/txoutbox}, {@code /dead})
 * answer them: the same fields, the same page size and paging, the same bound on per-type rows.
 *
 * <p>The records are the serialization: each front end writes them with its own Jackson databind (the
 * server Jackson 2, a Spring Boot 4 application Jackson 3, with the application's settings), and their
 * annotations fix what the mappers could do differently (field order, and {@code null}s, which Jackson 3
 * sorts and an application may leave out), so both write the same bytes. Nothing here is a payload or a
 * header value: an admin answer never carries one.
 */
public final class AdminJson {
    /** Dead events per page when the request names no {@code limit}. */
    public static final int DEFAULT_PAGE_SIZE = 50;

    /** Event types that keep a row of their own in the stats when the front end sets no bound. */
    public static final int DEFAULT_MAX_TYPES = 50;

    /** The row that sums the types beyond the bound, named as the metrics name theirs. */
    public static final String OTHER_TYPE = "<other>";

    private AdminJson() {}

    /**
     * @param table the outbox table, as the outbox names it
     * @param stats the table's counts, read in one query
     * @param maxTypes how many event types keep a row of their own (1 or more): those with the largest
     *     backlog; the others are summed under {@link #OTHER_TYPE}, so that a table with thousands of types
     *     costs a few kilobytes per answer
     * @return the stats answer
     */
    public static Stats stats(String table, OutboxStats stats, int maxTypes) {
        if (maxTypes < 1) {
            throw new IllegalArgumentException("maxTypes must be 1 or more, not " + maxTypes);
        }
        Map<String, TypeCounts> byType = new LinkedHashMap<>();
        topTypes(stats.byType(), maxTypes).forEach((type, t) -> byType.put(type, TypeCounts.of(t)));
        return new Stats(
                table,
                stats.pending(),
                stats.inFlight(),
                stats.retrying(),
                stats.dead(),
                stats.published(),
                stats.oldestPendingAge().toMillis(),
                stats.blockedAggregates(),
                stats.blockedEvents(),
                stats.byType().size(),
                byType);
    }

    /**
     * Reads the paging parameters of a dead-event listing as both front ends take them: text, from a
     * query string.
     *
     * @param type only this event type; {@code null} or blank for every type
     * @param limit the page size, 1 to {@value DeadQuery#MAX_LIMIT}; {@code null} or blank for {@link
     *     #DEFAULT_PAGE_SIZE}
     * @param after the {@code next} of the previous page; {@code null} or blank for the first page
     * @return the query
     * @throws OutboxValidationException naming {@code limit} or {@code after} when it is not a page size
     *     or an event id
     */
    public static DeadQuery deadQuery(String type, String limit, String after) {
        int size = DEFAULT_PAGE_SIZE;
        if (limit != null && !limit.isBlank()) {
            try {
                size = Integer.parseInt(limit.strip());
            } catch (NumberFormatException e) {
                throw new OutboxValidationException(
                        "limit",
                        "1.." + DeadQuery.MAX_LIMIT,
                        "limit '" + limit + "' is not an integer from 1 to " + DeadQuery.MAX_LIMIT);
            }
        }
        UUID start = null;
        if (after != null && !after.isBlank()) {
            try {
                start = UUID.fromString(after.strip());
            } catch (IllegalArgumentException e) {
                throw new OutboxValidationException(
                        "after", null, "after: '" + after + "' is not an event id (a UUID)");
            }
        }
        // The query parameter is named as the caller wrote it: limit.
        return new DeadQuery(type == null || type.isBlank() ? null : type, start, DeadQuery.LIMIT.check(size, "limit"));
    }

    /**
     * @param events one page, as the outbox's admin listed it for {@code query}
     * @param query the query of that page
     * @return the page, with {@code next} set when the page is full (there may be more)
     */
    public static DeadPage deadPage(List<DeadEvent> events, DeadQuery query) {
        List<Dead> out = new ArrayList<>(events.size());
        events.forEach(e -> out.add(Dead.of(e)));
        String next = events.size() == query.limit() ? out.get(out.size() - 1).id() : null;
        return new DeadPage(out, next);
    }

    /**
     * The stats answer.
     *
     * @param table the outbox table
     * @param pending events waiting to be published, not leased (includes {@code retrying})
     * @param inFlight events leased by a relay now
     * @param retrying pending events that failed at least once
     * @param dead events that wait for an operator
     * @param published published events kept by retention
     * @param oldestPendingAgeMillis the age of the oldest unpublished event, 0 when there is none
     * @param blockedAggregates ordered mode: aggregates held back by a dead head
     * @param blockedEvents ordered mode: pending events held back behind a dead head
     * @param types how many event types the table holds (more than {@code byType} shows when bounded)
     * @param byType counts per type, sorted by name, {@link #OTHER_TYPE} last when types were left out
     */
    @JsonInclude(value = JsonInclude.Include.ALWAYS, content = JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({
        "table",
        "pending",
        "inFlight",
        "retrying",
        "dead",
        "published",
        "oldestPendingAgeMillis",
        "blockedAggregates",
        "blockedEvents",
        "types",
        "byType"
    })
    public record Stats(
            String table,
            long pending,
            long inFlight,
            long retrying,
            long dead,
            long published,
            long oldestPendingAgeMillis,
            long blockedAggregates,
            long blockedEvents,
            int types,
            Map<String, TypeCounts> byType) {
        /** Keeps the order of {@code byType}. */
        public Stats {
            byType = Collections.unmodifiableMap(new LinkedHashMap<>(byType));
        }
    }

    /**
     * The counts of one event type.
     *
     * @param pending waiting and not leased
     * @param inFlight leased by a relay
     * @param retrying waiting after at least one failure
     * @param dead gave up
     * @param published kept by retention
     */
    @JsonInclude(value = JsonInclude.Include.ALWAYS, content = JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"pending", "inFlight", "retrying", "dead", "published"})
    public record TypeCounts(long pending, long inFlight, long retrying, long dead, long published) {
        static TypeCounts of(OutboxStats.TypeStats t) {
            return new TypeCounts(t.pending(), t.inFlight(), t.retrying(), t.dead(), t.published());
        }
    }

    /**
     * One page of dead events.
     *
     * @param events the page, by id
     * @param next the {@code after} of the next page, or {@code null} when this page was not full
     */
    @JsonInclude(value = JsonInclude.Include.ALWAYS, content = JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"events", "next"})
    public record DeadPage(List<Dead> events, String next) {
        /** Copies the page. */
        public DeadPage {
            events = List.copyOf(events);
        }
    }

    /**
     * A dead event without its payload: enough to find the cause.
     *
     * @param id the event id
     * @param eventType what happened
     * @param eventVersion the payload schema version
     * @param aggregateType the kind of entity
     * @param aggregateId the entity's id
     * @param tenantId the tenant, or {@code null}
     * @param attempts how many attempts were made
     * @param lastError the reason of the last failure
     * @param createdAt when it was appended (ISO-8601), or {@code null}
     * @param heldBack ordered mode: later events of the aggregate that wait behind this one
     */
    @JsonInclude(value = JsonInclude.Include.ALWAYS, content = JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({
        "id",
        "eventType",
        "eventVersion",
        "aggregateType",
        "aggregateId",
        "tenantId",
        "attempts",
        "lastError",
        "createdAt",
        "heldBack"
    })
    public record Dead(
            String id,
            String eventType,
            int eventVersion,
            String aggregateType,
            String aggregateId,
            String tenantId,
            int attempts,
            String lastError,
            String createdAt,
            long heldBack) {
        static Dead of(DeadEvent d) {
            return new Dead(
                    d.id().toString(),
                    d.eventType(),
                    d.eventVersion(),
                    d.aggregateType(),
                    d.aggregateId(),
                    d.tenantId(),
                    d.attempts(),
                    d.lastError(),
                    d.createdAt() == null ? null : d.createdAt().toString(),
                    d.heldBack());
        }
    }

    /**
     * @return at most {@code n} types by backlog (pending, in flight, retrying and dead; then published;
     *     then name), sorted by name, plus {@link #OTHER_TYPE} last when types were left out
     */
    private static Map<String, OutboxStats.TypeStats> topTypes(Map<String, OutboxStats.TypeStats> all, int n) {
        if (all.size() <= n) {
            return new TreeMap<>(all);
        }
        List<Map.Entry<String, OutboxStats.TypeStats>> ranked = new ArrayList<>(all.entrySet());
        ranked.sort(Comparator.comparingLong((Map.Entry<String, OutboxStats.TypeStats> e) -> -backlog(e.getValue()))
                .thenComparingLong(e -> -e.getValue().published())
                .thenComparing(Map.Entry::getKey));
        Map<String, OutboxStats.TypeStats> kept = new TreeMap<>();
        long pending = 0;
        long inFlight = 0;
        long retrying = 0;
        long dead = 0;
        long published = 0;
        for (int i = 0; i < ranked.size(); i++) {
            Map.Entry<String, OutboxStats.TypeStats> e = ranked.get(i);
            if (i < n) {
                kept.put(e.getKey(), e.getValue());
            } else {
                OutboxStats.TypeStats t = e.getValue();
                pending += t.pending();
                inFlight += t.inFlight();
                retrying += t.retrying();
                dead += t.dead();
                published += t.published();
            }
        }
        Map<String, OutboxStats.TypeStats> out = new LinkedHashMap<>(kept);
        out.put(OTHER_TYPE, new OutboxStats.TypeStats(pending, inFlight, retrying, dead, published));
        return out;
    }

    private static long backlog(OutboxStats.TypeStats t) {
        return t.pending() + t.inFlight() + t.retrying() + t.dead();
    }
}
