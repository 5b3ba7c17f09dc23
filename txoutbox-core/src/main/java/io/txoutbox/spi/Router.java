package io.txoutbox.spi;

import java.util.Objects;
import java.util.function.Function;

/**
 * Decides where an event goes: a topic, an exchange's routing key, a subject, a stream, an endpoint.
 * Every transport takes one; the event's own {@link ClaimedEvent#destination()} always wins over it.
 */
@FunctionalInterface
public interface Router {

    /** Routes by aggregate type: {@code order} events to {@code order}. The default. */
    Router BY_AGGREGATE_TYPE = ClaimedEvent::aggregateType;

    /** Routes by event type: {@code order.placed} to {@code order.placed}. */
    Router BY_EVENT_TYPE = ClaimedEvent::eventType;

    /**
     * @param event a claimed event
     * @return its route, ignoring the event's own destination
     */
    String route(ClaimedEvent event);

    /**
     * @param event a claimed event
     * @return the event's own destination if it names one, otherwise this rule's route
     */
    default String destinationOf(ClaimedEvent event) {
        String own = event.destination();
        return own != null ? own : route(event);
    }

    /**
     * @param prefix put before every route, for example {@code events.}
     * @return this rule with a prefix (the event's own destination is not prefixed)
     */
    default Router withPrefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return e -> prefix + route(e);
    }

    /**
     * @param rule any function of the event
     * @return it, as a router
     */
    static Router of(Function<ClaimedEvent, String> rule) {
        Objects.requireNonNull(rule, "rule");
        return rule::apply;
    }

    /**
     * @param destination the one route of every event
     * @return a router that sends everything to one place
     */
    static Router fixed(String destination) {
        Objects.requireNonNull(destination, "destination");
        return e -> destination;
    }
}
