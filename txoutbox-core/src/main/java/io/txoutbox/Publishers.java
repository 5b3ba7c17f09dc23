package io.txoutbox;

import io.txoutbox.spi.Publisher;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Publishers made of other publishers. {@link #byEventType} sends each event to the publisher of its
 * type's route, and lets the relay mark each route's events as soon as that route confirms ({@link
 * Publisher#publishParts}): a slow or silent destination holds back only its own events, never the
 * others' (a relay claims on while a slow route's part is out, a bounded number of batches at a time).
 *
 * <pre>{@code
 * Publisher publisher = Publishers.byEventType(Map.of(
 *         "order.*", kafka,         // every type starting with "order."
 *         "audit.logged", webhook,  // this type only
 *         "*", log));               // everything else
 * }</pre>
 */
public final class Publishers {
    private Publishers() {}

    /**
     * Routes by event type: an exact type wins, then the longest prefix ending in {@code *}, then {@code
     * *}. An event no route takes is dead, naming the routes (a silent skip would lose it). Each route's
     * events of a batch go to its publisher in one call, as one part of the batch; a part that fails as a
     * whole makes its own events retry. {@link Publisher#close()} closes every route's publisher.
     *
     * @param routes type pattern to publisher, at least one; the same publisher may serve several patterns
     * @return a publisher that routes
     * @throws OutboxValidationException when a pattern is blank or has a {@code *} elsewhere than at its end
     */
    public static Publisher byEventType(Map<String, ? extends Publisher> routes) {
        Objects.requireNonNull(routes, "routes");
        if (routes.isEmpty()) {
            throw new OutboxValidationException(
                    "routes", null, "Publishers.byEventType routes is empty; give at least one route");
        }
        Map<String, Publisher> copy = new LinkedHashMap<>();
        routes.forEach((pattern, publisher) -> {
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(publisher, "publisher of '" + pattern + "'");
            if (pattern.isBlank() || pattern.indexOf('*') >= 0 && pattern.indexOf('*') != pattern.length() - 1) {
                throw new OutboxValidationException(
                        "pattern",
                        null,
                        "Publishers.byEventType pattern '" + pattern
                                + "' is not an event type, a prefix ending in '*', or '*'");
            }
            copy.put(pattern, publisher);
        });
        return new EventTypeRoutes(copy);
    }
}
