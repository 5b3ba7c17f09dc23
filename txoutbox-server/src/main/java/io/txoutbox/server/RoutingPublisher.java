package io.txoutbox.server;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Sends each event of a batch to the transport of its route: an exact type wins, then the longest
 * prefix ({@code order.*}), then {@code *}. Each transport gets one sub-batch; the outcomes are put
 * back in batch order. An event that no route matches is dead with the reason (a silent skip would
 * lose it). A transport that fails as a whole makes its own events retry, not the others'.
 */
final class RoutingPublisher implements Publisher {

    /** One route: its type patterns and its open publisher. */
    record Target(List<String> types, String transport, Publisher publisher) {}

    private final List<Target> targets;

    RoutingPublisher(List<Target> targets) {
        this.targets = List.copyOf(targets);
    }

    /** @return the route index of an event type, or -1 when none matches */
    int route(String eventType) {
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
        PublishOutcome[] outcomes = new PublishOutcome[batch.size()];
        Map<Integer, List<Integer>> byTarget = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            int t = route(batch.get(i).eventType());
            if (t < 0) {
                outcomes[i] = PublishOutcome.dead(
                        "no route matches event type '" + batch.get(i).eventType() + "' (routes: "
                                + targets.stream().map(Target::types).toList() + ")");
            } else {
                byTarget.computeIfAbsent(t, k -> new ArrayList<>()).add(i);
            }
        }
        List<CompletableFuture<Void>> parts = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> e : byTarget.entrySet()) {
            Target target = targets.get(e.getKey());
            List<Integer> indexes = e.getValue();
            List<ClaimedEvent> sub = indexes.stream().map(batch::get).toList();
            CompletableFuture<List<PublishOutcome>> f;
            try {
                f = target.publisher().publish(sub).toCompletableFuture();
            } catch (RuntimeException ex) {
                f = CompletableFuture.failedFuture(ex);
            }
            parts.add(f.handle((list, error) -> {
                for (int j = 0; j < indexes.size(); j++) {
                    int i = indexes.get(j);
                    if (error != null || list == null || list.size() != indexes.size()) {
                        outcomes[i] = PublishOutcome.retry("transport '" + target.transport() + "' failed: "
                                + (error != null ? describe(error) : "it returned the wrong number of outcomes"));
                    } else {
                        outcomes[i] = list.get(j);
                    }
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> Arrays.asList(outcomes));
    }

    private static String describe(Throwable error) {
        Throwable t = error.getCause() != null && error instanceof java.util.concurrent.CompletionException
                ? error.getCause()
                : error;
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
