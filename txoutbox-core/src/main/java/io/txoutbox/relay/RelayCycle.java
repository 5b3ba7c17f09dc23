package io.txoutbox.relay;

import io.txoutbox.OutboxStoreException;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.RelayListener.BatchReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim, publish and mark cycle of a relay, in two halves ({@link #claim()}, {@link #finish}) so
 * that a pipelining relay can claim the next batch while this one is published. The claim commits at
 * once; the batch is published with no transaction open ({@link BatchPublisher}); whatever fails in
 * between, the batch still ends in a mark, fenced by the lease owner, so that attempts never climb past
 * the budget with expired leases. Rows the mark did not reach (another relay took their lease over) are
 * counted as fenced.
 */
final class RelayCycle {
    private static final Logger log = LoggerFactory.getLogger(DefaultRelay.class);

    /** Attempts to mark a batch before leaving it to the lease (a re-publish later, never a loss). */
    static final int COMPLETE_TRIES = 3;

    /**
     * Attempts to mark a batch when the database says the failure is transient (a deadlock, a
     * serialization failure): two relays' claims and marks on InnoDB deadlock now and then under load, and
     * giving up after three quick tries published whole batches twice. The pauses between tries double
     * from {@link #TRANSIENT_FIRST_PAUSE} up to {@link #TRANSIENT_MAX_PAUSE}, with jitter, about 3 s in
     * all: well within the default lease, and a mark after the lease ended is fenced, never wrong.
     */
    static final int TRANSIENT_COMPLETE_TRIES = 8;

    static final Duration TRANSIENT_FIRST_PAUSE = Duration.ofMillis(50);
    static final Duration TRANSIENT_MAX_PAUSE = Duration.ofMillis(800);

    private final RelayScope scope;
    private final int batchSize;
    private final long maxBatchBytes;
    private final int maxAttempts;
    private final boolean retainPublished;
    private final Settlement settlement;
    private final BatchPublisher publisher;
    private final WakeSignal wake;

    /**
     * @param scope the relay this cycle belongs to
     * @param settings the relay's settings: batch size and bytes, retention, attempt budget and backoff
     * @param random the source of backoff jitter
     * @param publisher publishes a claimed batch
     * @param wake cuts short the pause between two tries to mark a batch when the relay stops
     */
    RelayCycle(
            RelayScope scope,
            RelaySettings settings,
            RandomGenerator random,
            BatchPublisher publisher,
            WakeSignal wake) {
        this.scope = scope;
        this.batchSize = settings.batchSize();
        this.maxBatchBytes = settings.maxBatchBytes();
        this.maxAttempts = settings.maxAttempts();
        this.retainPublished = settings.retainPublished() != null;
        this.settlement = new Settlement(settings.maxAttempts(), settings.backoff(), random);
        this.publisher = publisher;
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
        ClaimResult claim = scope.store()
                .claim(
                        scope.owner(),
                        batchSize,
                        maxBatchBytes,
                        maxAttempts,
                        scope.lease(),
                        scope.clock().instant());
        if (claim.size() == 0) {
            return null;
        }
        scope.reporter().claimed();
        return new Claimed(claim, claimStart);
    }

    /**
     * The second half of a cycle: publishes a claimed batch and marks it. Never throws for what the
     * publisher or the mark does: every failure ends in a mark, or (the database refusing) in the lease.
     *
     * @return how many rows the batch had, readable or not
     */
    int finish(Claimed claimed) {
        return finish(claimed, () -> {});
    }

    /**
     * The second half of a cycle, for a publisher that confirms a batch in parts: each part confirmed
     * while others are still out is marked at once, and then {@code detach} is called, so that the relay
     * may claim again while the rest of the batch is out.
     *
     * @param claimed the batch
     * @param detach called after a part was marked early (possibly more than once)
     * @return how many rows the batch had, readable or not
     */
    int finish(Claimed claimed, Runnable detach) {
        ClaimResult claim = claimed.claim();
        long claimStart = claimed.claimStart();
        List<ClaimedEvent> events = claim.events();
        boolean[] marked = new boolean[events.size()];
        long startNanos = System.nanoTime();
        BatchPublisher.EarlyParts early = (indexes, outcomes) -> {
            List<ClaimedEvent> part = new ArrayList<>(indexes.size());
            for (int i : indexes) {
                part.add(events.get(i));
                marked[i] = true;
            }
            markPart(claim, part, outcomes, Duration.ofNanos(System.nanoTime() - startNanos), false);
            detach.run();
        };
        Duration publishDuration = Duration.ZERO;
        List<ClaimedEvent> rest = new ArrayList<>(events.size());
        List<PublishOutcome> restOutcomes = new ArrayList<>(events.size());
        try {
            List<PublishOutcome> outcomes = events.isEmpty() ? List.of() : publisher.publish(events, claimStart, early);
            publishDuration = Duration.ofNanos(System.nanoTime() - startNanos);
            for (int i = 0; i < events.size(); i++) {
                if (!marked[i]) {
                    rest.add(events.get(i));
                    restOutcomes.add(outcomes.get(i));
                }
            }
        } catch (RuntimeException | Error e) {
            // The claim has committed and counted the attempt: whatever failed, the batch still ends in a
            // mark, or its attempts would climb past the budget with every expired lease.
            scope.reporter().error("publish", e);
            rest.clear();
            restOutcomes.clear();
            PublishOutcome failed = PublishOutcome.retry(
                    "relay '" + scope.name() + "' failed before marking: " + RelayReporter.describe(e));
            for (int i = 0; i < events.size(); i++) {
                if (!marked[i]) {
                    rest.add(events.get(i));
                    restOutcomes.add(failed);
                }
            }
        }
        markPart(claim, rest, restOutcomes, publishDuration, true);
        return claim.size();
    }

    /**
     * Settles and marks events of a claimed batch (with the batch's unreadable rows, once) and reports them.
     *
     * @param claim the batch they belong to
     * @param events some of its events
     * @param outcomes their publish outcomes
     * @param publishDuration how long they took
     * @param last whether this is the batch's last mark, which takes its unreadable and quarantined rows
     */
    private void markPart(
            ClaimResult claim,
            List<ClaimedEvent> events,
            List<PublishOutcome> outcomes,
            Duration publishDuration,
            boolean last) {
        Instant now = safeNow();
        List<Completion> completions = new ArrayList<>(events.size());
        List<PublishOutcome> finals = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            ClaimedEvent event = events.get(i);
            PublishOutcome outcome = outcomes.get(i);
            Completion completion;
            try {
                outcome = settlement.settle(event, outcome);
                completion = settlement.completion(event, outcome, now);
            } catch (RuntimeException e) {
                scope.reporter().error("publish", e);
                outcome = settlement.settle(
                        event,
                        PublishOutcome.retry(
                                "relay '" + scope.name() + "' failed before marking: " + RelayReporter.describe(e)));
                completion = settlement.safeCompletion(event, outcome, now);
            }
            finals.add(outcome);
            completions.add(completion);
        }
        Map<UUID, String> unreadable = last ? claim.unreadable() : Map.of();
        for (Map.Entry<UUID, String> bad : unreadable.entrySet()) {
            completions.add(new Completion(bad.getKey(), Outcome.DEAD, null, bad.getValue()));
        }
        if (last && !claim.quarantined().isEmpty()) {
            scope.reporter().quarantined(claim.quarantined().size());
            log.warn(
                    "txoutbox: relay '{}' marked {} rows dead whose id cannot be read: {}",
                    scope.name(),
                    claim.quarantined().size(),
                    claim.quarantined());
        }
        if (completions.isEmpty()) {
            return;
        }

        Optional<Set<UUID>> marks = complete(completions, now);
        if (marks.isEmpty()) {
            // The database refused every try: nothing was marked, and the lease will bring the rows back.
            report(events, finals, unreadable.size(), publishDuration, Set.of());
            return;
        }
        Set<UUID> markedIds = marks.get();
        Set<UUID> fencedIds = new HashSet<>();
        for (Completion c : completions) {
            if (!markedIds.contains(c.id())) {
                fencedIds.add(c.id());
            }
        }
        scope.reporter().marked(events, finals, fencedIds, unreadable.keySet());
        if (!fencedIds.isEmpty()) {
            log.warn(
                    "txoutbox: relay '{}' lost the lease of {} of {} events before marking them (lease {} ms);"
                            + " another relay owns them now and will publish them again",
                    scope.name(),
                    fencedIds.size(),
                    completions.size(),
                    scope.lease().toMillis());
        }
        if (!unreadable.isEmpty()) {
            log.warn(
                    "txoutbox: relay '{}' marked {} unreadable rows dead: {}",
                    scope.name(),
                    unreadable.size(),
                    unreadable);
        }
        report(events, finals, unreadable.size(), publishDuration, fencedIds);
    }

    /** Tells the listener how (part of) a batch ended: final outcomes, and which rows another relay took over. */
    private void report(
            List<ClaimedEvent> events,
            List<PublishOutcome> finals,
            int unreadable,
            Duration publishDuration,
            Set<UUID> fenced) {
        scope.reporter().batch(new BatchReport(scope.name(), events, finals, publishDuration, fenced, unreadable));
    }

    private Instant safeNow() {
        try {
            return scope.clock().instant();
        } catch (RuntimeException e) {
            return Instant.now();
        }
    }

    /**
     * Marks the batch; a failing database is retried briefly (a transient failure longer, with jittered
     * backoff), then the lease decides (a re-publish).
     *
     * @return the ids marked; empty when the database refused every try
     */
    private Optional<Set<UUID>> complete(List<Completion> completions, Instant now) {
        RuntimeException last = null;
        int tries = 0;
        while (true) {
            tries++;
            try {
                return Optional.of(scope.store().complete(scope.owner(), completions, now, retainPublished));
            } catch (RuntimeException e) {
                last = e;
                scope.reporter().error("complete", e);
            }
            boolean transientFailure = last instanceof OutboxStoreException s && s.isTransient();
            if (tries >= (transientFailure ? TRANSIENT_COMPLETE_TRIES : COMPLETE_TRIES)) {
                break;
            }
            // A stopping relay cuts the pause short and tries again: a batch it can still mark is not sent twice.
            wake.await(transientFailure ? transientPause(tries) : Duration.ofMillis(100L * tries));
        }
        log.warn(
                "txoutbox: relay '{}' could not mark a batch of {} events after {} tries ({}); their lease will"
                        + " expire and they will be published again",
                scope.name(),
                completions.size(),
                tries,
                last.getMessage());
        return Optional.empty();
    }

    /** @return the pause after the {@code tries}-th transient failure: doubling, capped, jittered by +-50% */
    static Duration transientPause(int tries) {
        long base = TRANSIENT_FIRST_PAUSE.toMillis() << Math.min(tries - 1, 16);
        long capped = Math.min(base, TRANSIENT_MAX_PAUSE.toMillis());
        return Duration.ofMillis(capped / 2 + ThreadLocalRandom.current().nextLong(capped + 1));
    }
}
