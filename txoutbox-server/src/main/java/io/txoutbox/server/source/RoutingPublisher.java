package io.txoutbox.server.source;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.PublishPart;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends each event of a batch to the transport of its route: an exact type wins, then the longest
 * prefix ({@code order.*}), then {@code *}. Each transport gets one sub-batch; the outcomes are put
 * back in batch order. An event that no route matches is dead with the reason (a silent skip would
 * lose it).
 *
 * <p>One broker's trouble stays its own: each route's events are a part of the batch of their own
 * ({@link #publishParts}), which the relay marks as soon as that route confirms, so that a slow route
 * does not hold back a fast one's events (nor, with the relay claiming on meanwhile, its next ones); a
 * transport that fails as a whole makes its own events retry,
 * not the others'; a route that does not confirm within the route deadline (a little less than the
 * relay's publish timeout) has its events retried while the other routes' confirmations count, so the
 * batch never times out as a whole and re-publishes what other brokers already took; and a route whose
 * broker stopped answering is held back for a while ({@link RouteStats}) so that its timeouts do not
 * slow every batch.
 */
public final class RoutingPublisher implements Publisher {

    /**
     * One route: its name, type patterns, transport and open publisher.
     *
     * @param name the route's name (metrics, API)
     * @param types the event types it takes
     * @param transport the transport's name
     * @param publisher the transport's publisher
     * @param target the transport's description, without secrets
     */
    public record Target(String name, List<String> types, String transport, Publisher publisher, String target) {
        public Target {
            types = List.copyOf(types);
        }

        public Target(List<String> types, String transport, Publisher publisher) {
            this(transport, types, transport, publisher, transport);
        }
    }

    private final List<Target> targets;
    private final List<RouteStats> stats;
    private final Duration deadline;
    private final InstantSource clock;

    /** Routes without meters and with a one-minute route deadline (tests of the routing rule). */
    public RoutingPublisher(List<Target> targets) {
        this(targets, Duration.ofMinutes(1), null, Tags.empty(), InstantSource.system());
    }

    /**
     * @param targets the routes
     * @param publishTimeout the relay's publish timeout: each route must confirm a little sooner
     * @param registry where the per-route meters go, or {@code null}
     * @param tags the source's tags
     * @param clock the time of hold-backs
     */
    public RoutingPublisher(
            List<Target> targets, Duration publishTimeout, MeterRegistry registry, Tags tags, InstantSource clock) {
        this.targets = List.copyOf(targets);
        // Leave the relay time to take the outcomes in before its own timeout fails the whole batch.
        long margin = Math.max(100, Math.min(1_000, publishTimeout.toMillis() / 10));
        this.deadline = Duration.ofMillis(Math.max(1, publishTimeout.toMillis() - margin));
        this.clock = clock;
        Duration slow = Duration.ofMillis(Math.max(1, deadline.toMillis() / 4));
        List<RouteStats> list = new ArrayList<>();
        for (Target t : this.targets) {
            list.add(new RouteStats(t, slow, registry, tags));
        }
        this.stats = List.copyOf(list);
    }

    /** @return each route's figures, in configuration order */
    List<RouteStats> routes() {
        return stats;
    }

    /** @return the route index of an event type, or -1 when none matches */
    public int route(String eventType) {
        int best = -1;
        int bestScore = -1;
        for (int i = 0; i < targets.size(); i++) {
            for (String pattern : targets.get(i).types()) {
                int score = score(pattern, eventType);
                if (score > bestScore) {
                    bestScore = score;
                    best = i;
                }
            }
        }
        return best;
    }

    /** Exact match beats any prefix; a longer prefix beats a shorter one; -1 for no match. */
    private static int score(String pattern, String type) {
        if (pattern.equals(type)) {
            return Integer.MAX_VALUE;
        }
        if (pattern.endsWith("*")) {
            String prefix = pattern.substring(0, pattern.length() - 1);
            return type.startsWith(prefix) ? prefix.length() : -1;
        }
        return -1;
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        return PublishPart.joined(batch.size(), publishParts(batch));
    }

    /**
     * One part per route (and one for the events no route takes, or a route holds back), so that the
     * relay marks each route's events when that route confirms, never waiting for a slower route. Each
     * part completes normally, at the latest at the route deadline.
     */
    @Override
    public List<PublishPart> publishParts(List<ClaimedEvent> batch) {
        List<Integer> settledIndexes = new ArrayList<>();
        List<PublishOutcome> settled = new ArrayList<>();
        Map<Integer, List<Integer>> byTarget = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            int t = route(batch.get(i).eventType());
            if (t < 0) {
                settledIndexes.add(i);
                settled.add(PublishOutcome.dead(
                        "no route matches event type '" + batch.get(i).eventType() + "' (routes: "
                                + targets.stream().map(Target::types).toList() + ")"));
            } else {
                byTarget.computeIfAbsent(t, k -> new ArrayList<>()).add(i);
            }
        }
        List<PublishPart> parts = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> e : byTarget.entrySet()) {
            Target target = targets.get(e.getKey());
            RouteStats route = stats.get(e.getKey());
            List<Integer> indexes = e.getValue();
            Instant heldUntil = route.admit(clock.instant());
            if (heldUntil != null) {
                String reason = "route '" + target.name() + "' (" + target.transport() + ") is failing, not sent"
                        + " until " + heldUntil + " so that other routes are not held up; last error: "
                        + route.snapshot().lastError();
                for (int i : indexes) {
                    settledIndexes.add(i);
                    settled.add(PublishOutcome.retryNotBefore(reason, heldUntil));
                }
                route.heldBack(indexes.size());
                continue;
            }
            List<ClaimedEvent> sub = indexes.stream().map(batch::get).toList();
            long start = System.nanoTime();
            CompletableFuture<List<PublishOutcome>> f;
            try {
                // A copy, so that the deadline never completes the transport's own future.
                f = target.publisher()
                        .publish(sub)
                        .toCompletableFuture()
                        .thenApply(list -> list)
                        .orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RuntimeException ex) {
                f = CompletableFuture.failedFuture(ex);
            }
            parts.add(new PublishPart(indexes, f.handle((list, error) -> {
                long took = System.nanoTime() - start;
                boolean whole = error != null || list == null || list.size() != indexes.size();
                String wholeReason = null;
                if (whole) {
                    Throwable cause = unwrap(error);
                    wholeReason = "transport '" + target.transport() + "' of route '" + target.name() + "' failed: "
                            + (cause instanceof TimeoutException
                                    ? "no confirmation within " + deadline.toMillis() + " ms"
                                    : cause != null ? describe(cause) : "it returned the wrong number of outcomes");
                }
                int ok = 0;
                int retry = 0;
                int gone = 0;
                String lastReason = wholeReason;
                List<PublishOutcome> outcomes = new ArrayList<>(indexes.size());
                for (int j = 0; j < indexes.size(); j++) {
                    PublishOutcome o = whole ? PublishOutcome.retry(wholeReason) : list.get(j);
                    outcomes.add(o);
                    switch (o.outcome()) {
                        case PUBLISHED -> ok++;
                        case RETRY -> retry++;
                        case DEAD -> gone++;
                    }
                    if (o.reason() != null) {
                        lastReason = o.reason();
                    }
                }
                route.record(ok, retry, gone, whole, took, lastReason, clock.instant());
                return outcomes;
            })));
        }
        if (!settledIndexes.isEmpty()) {
            parts.add(new PublishPart(settledIndexes, CompletableFuture.completedFuture(settled)));
        }
        return parts;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String describe(Throwable error) {
        Throwable t = unwrap(error);
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    @Override
    public void close() {
        for (Target t : targets) {
            try {
                t.publisher().close();
            } catch (RuntimeException e) {
                // Closing the others matters more than this one's failure; it is already unusable.
            }
        }
    }
}
