package io.txoutbox.test;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * A publisher for tests: records every event it is handed (duplicates included, in order) and answers
 * with the outcome your rule gives, {@link PublishOutcome#PUBLISHED} by default. Only the events it
 * answered {@code PUBLISHED} count as {@link #published()}. Thread-safe; several relays may share it.
 */
public final class RecordingPublisher implements Publisher {
    private final ReentrantLock lock = new ReentrantLock();
    private final List<ClaimedEvent> attempts = new ArrayList<>();
    private final List<ClaimedEvent> published = new ArrayList<>();
    private volatile Function<ClaimedEvent, PublishOutcome> rule = e -> PublishOutcome.PUBLISHED;

    /**
     * @param rule decides the outcome of each event; it may throw to fail the whole batch
     * @return this publisher
     */
    public RecordingPublisher answer(Function<ClaimedEvent, PublishOutcome> rule) {
        this.rule = Objects.requireNonNull(rule, "rule");
        return this;
    }

    /**
     * @param eventType a type to refuse
     * @param reason the retry reason
     * @return this publisher, retrying every event of that type and publishing the others
     */
    public RecordingPublisher retryType(String eventType, String reason) {
        return answer(e -> e.eventType().equals(eventType) ? PublishOutcome.retry(reason) : PublishOutcome.PUBLISHED);
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
        Function<ClaimedEvent, PublishOutcome> current = rule;
        for (ClaimedEvent event : batch) {
            PublishOutcome outcome = current.apply(event);
            outcomes.add(outcome);
            lock.lock();
            try {
                attempts.add(event);
                if (outcome.outcome() == io.txoutbox.spi.Outcome.PUBLISHED) {
                    published.add(event);
                }
            } finally {
                lock.unlock();
            }
        }
        return CompletableFuture.completedFuture(outcomes);
    }

    /** @return every event handed to this publisher, in order, whatever its outcome */
    public List<ClaimedEvent> attempts() {
        return copyOf(attempts);
    }

    /** @return the events answered {@code PUBLISHED}, in order, duplicates included */
    public List<ClaimedEvent> published() {
        return copyOf(published);
    }

    private List<ClaimedEvent> copyOf(List<ClaimedEvent> recorded) {
        lock.lock();
        try {
            return List.copyOf(recorded);
        } finally {
            lock.unlock();
        }
    }

    /** @return the ids answered {@code PUBLISHED}, each once, in first-publish order */
    public Set<UUID> publishedIds() {
        return idsOf(published());
    }

    /** @return how many times each id that was published more than once was published */
    public Map<UUID, Integer> duplicates() {
        Map<UUID, Integer> counts = new HashMap<>();
        for (ClaimedEvent e : published()) {
            counts.merge(e.id(), 1, Integer::sum);
        }
        counts.values().removeIf(n -> n < 2);
        return counts;
    }

    /**
     * @param eventType an event type
     * @return the published events of that type, in order
     */
    public List<ClaimedEvent> publishedOfType(String eventType) {
        return published().stream().filter(e -> e.eventType().equals(eventType)).toList();
    }

    /**
     * @param aggregateId an aggregate id
     * @return the published events of that aggregate, in publish order, duplicates included
     */
    public List<ClaimedEvent> publishedOfAggregate(String aggregateId) {
        return published().stream()
                .filter(e -> e.aggregateId().equals(aggregateId))
                .toList();
    }

    /** @return how many distinct ids were published */
    public int publishedCount() {
        return publishedIds().size();
    }

    /** Forgets everything recorded so far (the rule stays). */
    public void clear() {
        lock.lock();
        try {
            attempts.clear();
            published.clear();
        } finally {
            lock.unlock();
        }
    }

    /** @return the distinct ids that were handed over at least once, in first-attempt order */
    public Set<UUID> attemptedIds() {
        return idsOf(attempts());
    }

    private static Set<UUID> idsOf(List<ClaimedEvent> events) {
        Set<UUID> ids = new LinkedHashSet<>();
        for (ClaimedEvent e : events) {
            ids.add(e.id());
        }
        return ids;
    }
}
