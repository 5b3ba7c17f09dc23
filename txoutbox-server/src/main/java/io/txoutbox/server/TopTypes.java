package io.txoutbox.server;

import io.txoutbox.OutboxStats;
import io.txoutbox.micrometer.OutboxMetrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bounds the per-type rows of the stats answer (and so of every dashboard poll): the {@code n} types with
 * the largest backlog keep their own row, every other type is summed into one {@code <other>} row. A
 * table with thousands of event types then costs a few kilobytes per poll, not megabytes.
 */
final class TopTypes {
    /** The row that sums the types beyond the bound, named as the metrics name theirs. */
    static final String OTHER = OutboxMetrics.OTHER_TYPE;

    private TopTypes() {}

    /**
     * @param all the counts of every type
     * @param n how many types keep a row of their own
     * @return at most {@code n} types by backlog (pending, in flight, retrying and dead; then published;
     *     then name), sorted by name, plus {@code <other>} last when types were left out
     */
    static Map<String, OutboxStats.TypeStats> of(Map<String, OutboxStats.TypeStats> all, int n) {
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
        out.put(OTHER, new OutboxStats.TypeStats(pending, inFlight, retrying, dead, published));
        return out;
    }

    private static long backlog(OutboxStats.TypeStats t) {
        return t.pending() + t.inFlight() + t.retrying() + t.dead();
    }
}
