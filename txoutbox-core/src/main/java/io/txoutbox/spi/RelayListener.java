package io.txoutbox.spi;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Hears what a relay does: every finished batch and every failure. Metrics, logs and alerts hook in
 * here. Called on the relay's thread: return quickly and do not throw (a throwing listener is logged
 * and ignored).
 */
public interface RelayListener {
    /** A listener that does nothing. */
    RelayListener NOOP = new RelayListener() {};

    /**
     * A batch was published and marked.
     *
     * @param report what was claimed, what became of each event, and how long the broker took
     */
    default void onBatch(BatchReport report) {}

    /**
     * Something failed that the relay survived: a claim, a publish, a mark, the listener connection.
     * The relay backs off and carries on.
     *
     * @param relay the relay's name
     * @param phase what it was doing: {@code claim}, {@code publish}, {@code complete}, {@code listen},
     *     {@code purge}
     * @param error the failure
     */
    default void onError(String relay, String phase, Throwable error) {}

    /**
     * One finished batch, or one part of it: a publisher that confirms a batch in parts ({@link
     * Publisher#publishParts}) has each part confirmed early reported on its own, and the rest after.
     *
     * @param relay the relay's name
     * @param events the claimed events, in publish order
     * @param outcomes one outcome per event, in the same order
     * @param publishDuration from handing the batch to the publisher to its last confirmation
     * @param fenced ids whose mark was refused because another relay holds their lease now: their outcome
     *     did not count; another relay will publish them again
     * @param unreadable rows claimed but unreadable, marked dead at once
     */
    record BatchReport(
            String relay,
            List<ClaimedEvent> events,
            List<PublishOutcome> outcomes,
            Duration publishDuration,
            Set<UUID> fenced,
            int unreadable) {
        /** Copies the collections. */
        public BatchReport {
            events = List.copyOf(events);
            outcomes = List.copyOf(outcomes);
            fenced = Set.copyOf(fenced);
        }

        /**
         * @param outcome an outcome
         * @return how many events of this batch ended with it (fenced ones excluded)
         */
        public long count(Outcome outcome) {
            long n = 0;
            for (int i = 0; i < events.size(); i++) {
                if (outcomes.get(i).outcome() == outcome
                        && !fenced.contains(events.get(i).id())) {
                    n++;
                }
            }
            return n;
        }
    }
}
