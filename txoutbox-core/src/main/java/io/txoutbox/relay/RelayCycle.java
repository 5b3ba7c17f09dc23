package io.txoutbox.relay;

import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.RelayListener.BatchReport;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim, publish and mark cycle of a relay, in two halves ({@link #claim()}, {@link #finish}) so
 * that a pipelining relay can claim the next batch while this one is published. The claim commits at once; the batch is published with
 * no transaction open ({@link BatchPublisher}); whatever fails in between, the batch still ends in a
 * mark, fenced by the lease owner, so that attempts never climb past the budget with expired leases.
 * Rows the mark did not reach (another relay took their lease over) are counted as fenced.
 */
final class RelayCycle {
    private static final Logger log = LoggerFactory.getLogger(DefaultRelay.class);

    /** Attempts to mark a batch before leaving it to the lease (a re-publish later, never a loss). */
    static final int COMPLETE_TRIES = 3;

    private final String name;
    private final String owner;
    private final OutboxStore store;
    private final InstantSource clock;
    private final int batchSize;
    private final long maxBatchBytes;
    private final Duration lease;
    private final boolean retainPublished;
    private final Settlement settlement;
    private final BatchPublisher publisher;
    private final RelayReporter reporter;
    private final WakeSignal wake;

    RelayCycle(
            String name,
            String owner,
            OutboxStore store,
            InstantSource clock,
            int batchSize,
            long maxBatchBytes,
            Duration lease,
            boolean retainPublished,
            Settlement settlement,
            BatchPublisher publisher,
            RelayReporter reporter,
            WakeSignal wake) {
        this.name = name;
        this.owner = owner;
        this.store = store;
        this.clock = clock;
        this.batchSize = batchSize;
        this.maxBatchBytes = maxBatchBytes;
        this.lease = lease;
        this.retainPublished = retainPublished;
        this.settlement = settlement;
        this.publisher = publisher;
        this.reporter = reporter;
        this.wake = wake;
    }

    /**
     * @return how many rows were claimed, readable or not (0 when nothing was due)
     * @throws io.txoutbox.OutboxStoreException when the claim fails
     */
    int run() {
        Claimed claimed = claim();
        return claimed == null ? 0 : finish(claimed);
    }

    /** A claimed batch, and when its claim started on this JVM's monotonic clock (its lease runs from then). */
    record Claimed(ClaimResult claim, long claimStart) {}

    /**
     * The first half of a cycle: claims a batch.
     *
     * @return the batch, or {@code null} when nothing was due
     * @throws io.txoutbox.OutboxStoreException when the claim fails
     */
    Claimed claim() {
        long claimStart = System.nanoTime();
        ClaimResult claim = store.claim(owner, batchSize, maxBatchBytes, lease, clock.instant());
        if (claim.size() == 0) {
            return null;
        }
        reporter.claimed();
        return new Claimed(claim, claimStart);
    }

    /**
     * The second half of a cycle: publishes a claimed batch and marks it. Never throws for what the
     * publisher or the mark does: every failure ends in a mark, or (the database refusing) in the lease.
     *
     * @return how many rows the batch had, readable or not
     */
    int finish(Claimed claimed) {
        ClaimResult claim = claimed.claim();
        long claimStart = claimed.claimStart();
        List<ClaimedEvent> events = claim.events();
        Duration publishDuration = Duration.ZERO;
        Instant now;
        List<Completion> completions = new ArrayList<>(claim.size());
        List<PublishOutcome> finals = new ArrayList<>(events.size());
        try {
            long startNanos = System.nanoTime();
            List<PublishOutcome> outcomes = events.isEmpty() ? List.of() : publisher.publish(events, claimStart);
            publishDuration = Duration.ofNanos(System.nanoTime() - startNanos);
            now = clock.instant();
            for (int i = 0; i < events.size(); i++) {
                ClaimedEvent event = events.get(i);
                PublishOutcome outcome = settlement.settle(event, outcomes.get(i));
                finals.add(outcome);
                completions.add(settlement.completion(event, outcome, now));
            }
        } catch (RuntimeException | Error e) {
            // The claim has committed and counted the attempt: whatever failed, the batch still ends in a
            // mark, or its attempts would climb past the budget with every expired lease.
            reporter.error("publish", e);
            now = safeNow();
            completions.clear();
            finals.clear();
            PublishOutcome failed =
                    PublishOutcome.retry("relay '" + name + "' failed before marking: " + RelayReporter.describe(e));
            for (ClaimedEvent event : events) {
                PublishOutcome outcome = settlement.settle(event, failed);
                finals.add(outcome);
                completions.add(settlement.safeCompletion(event, outcome, now));
            }
        }
        for (Map.Entry<UUID, String> bad : claim.unreadable().entrySet()) {
            completions.add(new Completion(bad.getKey(), Outcome.DEAD, null, bad.getValue()));
        }
        if (!claim.quarantined().isEmpty()) {
            reporter.quarantined(claim.quarantined().size());
            log.warn(
                    "txoutbox: relay '{}' marked {} rows dead whose id cannot be read: {}",
                    name,
                    claim.quarantined().size(),
                    claim.quarantined());
        }
        if (completions.isEmpty()) {
            return claim.size();
        }

        Optional<Set<UUID>> marks = complete(completions, now);
        if (marks.isEmpty()) {
            // The database refused every try: nothing was marked, and the lease will bring the batch back.
            reporter.batch(new BatchReport(
                    name,
                    events,
                    finals,
                    publishDuration,
                    Set.of(),
                    claim.unreadable().size()));
            return claim.size();
        }
        Set<UUID> marked = marks.get();
        Set<UUID> fencedIds = new HashSet<>();
        for (Completion c : completions) {
            if (!marked.contains(c.id())) {
                fencedIds.add(c.id());
            }
        }
        reporter.marked(events, finals, fencedIds, claim.unreadable().keySet());
        if (!fencedIds.isEmpty()) {
            log.warn(
                    "txoutbox: relay '{}' lost the lease of {} of {} events before marking them (lease {} ms);"
                            + " another relay owns them now and will publish them again",
                    name,
                    fencedIds.size(),
                    completions.size(),
                    lease.toMillis());
        }
        if (!claim.unreadable().isEmpty()) {
            log.warn(
                    "txoutbox: relay '{}' marked {} unreadable rows dead: {}",
                    name,
                    claim.unreadable().size(),
                    claim.unreadable());
        }
        reporter.batch(new BatchReport(
                name,
                events,
                finals,
                publishDuration,
                fencedIds,
                claim.unreadable().size()));
        return claim.size();
    }

    private Instant safeNow() {
        try {
            return clock.instant();
        } catch (RuntimeException e) {
            return Instant.now();
        }
    }

    /**
     * Marks the batch; a failing database is retried briefly, then the lease decides (a re-publish).
     *
     * @return the ids marked; empty when the database refused every try
     */
    private Optional<Set<UUID>> complete(List<Completion> completions, Instant now) {
        RuntimeException last = null;
        for (int tries = 1; tries <= COMPLETE_TRIES; tries++) {
            try {
                return Optional.of(store.complete(owner, completions, now, retainPublished));
            } catch (RuntimeException e) {
                last = e;
                reporter.error("complete", e);
                if (tries < COMPLETE_TRIES) {
                    wake.await(Duration.ofMillis(100L * tries));
                }
            }
        }
        log.warn(
                "txoutbox: relay '{}' could not mark a batch of {} events ({}); their lease will expire and they"
                        + " will be published again",
                name,
                completions.size(),
                last.getMessage());
        return Optional.empty();
    }
}
