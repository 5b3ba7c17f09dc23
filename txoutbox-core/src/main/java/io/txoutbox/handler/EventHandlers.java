package io.txoutbox.handler;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A {@link Publisher} that hands events to handlers in this process, routed by event type: an exact
 * type ({@code order.placed}) or a prefix ending in {@code *} ({@code email.*}). An exact route wins
 * over a prefix, and a longer prefix over a shorter one. An event no route matches goes dead with the
 * reason. Handlers run one after the other in batch order, so the events of one aggregate are handled
 * in the order the relay claimed them.
 *
 * <pre>{@code
 * Publisher handlers = EventHandlers.builder()
 *         .on("order.placed", billing::charge)
 *         .on("email.*", mailer::send)
 *         .build();
 * }</pre>
 */
public final class EventHandlers implements Publisher {
    private final Map<String, EventHandler> exact;
    private final List<Map.Entry<String, EventHandler>> prefixes;
    private final Executor executor;

    private EventHandlers(Builder b) {
        this.exact = Map.copyOf(b.exact);
        List<Map.Entry<String, EventHandler>> sorted = new ArrayList<>(b.prefixes.entrySet());
        sorted.sort((x, y) -> Integer.compare(y.getKey().length(), x.getKey().length()));
        this.prefixes = List.copyOf(sorted);
        this.executor = b.executor;
    }

    /** @return a builder with no routes */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        if (executor == null) {
            return CompletableFuture.completedFuture(handleAll(batch));
        }
        return CompletableFuture.supplyAsync(() -> handleAll(batch), executor);
    }

    private List<PublishOutcome> handleAll(List<ClaimedEvent> batch) {
        List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
        for (ClaimedEvent event : batch) {
            outcomes.add(handle(event));
        }
        return outcomes;
    }

    private PublishOutcome handle(ClaimedEvent event) {
        EventHandler handler = route(event.eventType());
        if (handler == null) {
            return PublishOutcome.dead(
                    "no handler for event type '" + event.eventType() + "' (routes: " + exact.keySet() + ", prefixes: "
                            + prefixes.stream().map(e -> e.getKey() + "*").toList() + ")");
        }
        try {
            handler.handle(event);
            return PublishOutcome.PUBLISHED;
        } catch (PermanentFailureException e) {
            return PublishOutcome.dead(e.getMessage() == null ? "permanent failure" : e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PublishOutcome.retry("handler interrupted");
        } catch (Exception e) {
            return PublishOutcome.retry(
                    e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    private EventHandler route(String type) {
        EventHandler handler = exact.get(type);
        if (handler != null) {
            return handler;
        }
        for (Map.Entry<String, EventHandler> prefix : prefixes) {
            if (type.startsWith(prefix.getKey())) {
                return prefix.getValue();
            }
        }
        return null;
    }

    /** Builds {@link EventHandlers}; each route is checked as it is added. */
    public static final class Builder {
        private final Map<String, EventHandler> exact = new LinkedHashMap<>();
        private final Map<String, EventHandler> prefixes = new LinkedHashMap<>();
        private Executor executor;

        private Builder() {}

        /**
         * @param route an exact event type, or a prefix ending in {@code *} ({@code email.*})
         * @param handler the handler of the matching events
         * @return this builder
         * @throws OutboxValidationException when the route is blank or already taken
         */
        public Builder on(String route, EventHandler handler) {
            if (route == null || route.isBlank() || route.equals("*") && handler == null) {
                throw new OutboxValidationException(
                        "EventHandlers.route", null, "EventHandlers route is blank; give an event type or a prefix*");
            }
            if (handler == null) {
                throw new OutboxValidationException(
                        "EventHandlers.handler", null, "EventHandlers handler for '" + route + "' is missing");
            }
            boolean prefix = route.endsWith("*");
            String key = prefix ? route.substring(0, route.length() - 1) : route;
            Map<String, EventHandler> target = prefix ? prefixes : exact;
            if (target.putIfAbsent(key, handler) != null) {
                throw new OutboxValidationException(
                        "EventHandlers.route", null, "EventHandlers route '" + route + "' has two handlers");
            }
            return this;
        }

        /**
         * @param executor runs the handlers off the relay's thread (default: on it)
         * @return this builder
         */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /** @return the publisher */
        public EventHandlers build() {
            return new EventHandlers(this);
        }
    }
}
