package io.txoutbox;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.PublishPart;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@link Publishers#byEventType}: one part per route, so that the relay marks each route on its own. */
final class EventTypeRoutes implements Publisher {
    private final Map<String, Publisher> routes;

    EventTypeRoutes(Map<String, Publisher> routes) {
        this.routes = routes;
    }

    /** @return the pattern that takes the type, or {@code null}: exact, then the longest prefix, then {@code *} */
    String route(String type) {
        if (routes.containsKey(type)) {
            return type;
        }
        String best = null;
        for (String pattern : routes.keySet()) {
            if (pattern.endsWith("*")
                    && type.startsWith(pattern.substring(0, pattern.length() - 1))
                    && (best == null || pattern.length() > best.length())) {
                best = pattern;
            }
        }
        return best;
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        return PublishPart.joined(batch.size(), publishParts(batch));
    }

    @Override
    public List<PublishPart> publishParts(List<ClaimedEvent> batch) {
        Map<String, List<Integer>> byRoute = new LinkedHashMap<>();
        List<Integer> unrouted = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            String pattern = route(batch.get(i).eventType());
            if (pattern == null) {
                unrouted.add(i);
            } else {
                byRoute.computeIfAbsent(pattern, k -> new ArrayList<>()).add(i);
            }
        }
        List<PublishPart> parts = new ArrayList<>(byRoute.size() + 1);
        for (Map.Entry<String, List<Integer>> e : byRoute.entrySet()) {
            List<Integer> indexes = e.getValue();
            List<ClaimedEvent> sub = indexes.stream().map(batch::get).toList();
            CompletionStage<List<PublishOutcome>> stage;
            try {
                stage = routes.get(e.getKey()).publish(sub);
            } catch (RuntimeException ex) {
                stage = CompletableFuture.failedFuture(ex);
            }
            parts.add(new PublishPart(indexes, stage));
        }
        if (!unrouted.isEmpty()) {
            List<PublishOutcome> dead = new ArrayList<>(unrouted.size());
            for (int i : unrouted) {
                dead.add(PublishOutcome.dead("no route matches event type '"
                        + batch.get(i).eventType() + "' (routes: " + routes.keySet() + ")"));
            }
            parts.add(new PublishPart(unrouted, CompletableFuture.completedFuture(dead)));
        }
        return parts;
    }

    @Override
    public void close() {
        Set<Publisher> closed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Publisher p : routes.values()) {
            if (closed.add(p)) {
                try {
                    p.close();
                } catch (RuntimeException e) {
                    // Closing the others matters more than this one's failure; it is already unusable.
                }
            }
        }
    }
}
