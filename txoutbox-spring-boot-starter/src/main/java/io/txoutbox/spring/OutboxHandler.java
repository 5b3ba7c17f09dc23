package io.txoutbox.spring;

import io.txoutbox.handler.EventHandler;
import io.txoutbox.spi.ClaimedEvent;
import java.util.Objects;

/**
 * An in-process handler as a Spring bean: the starter routes every event whose type matches {@link
 * #route()} to it, when the application defines no {@link io.txoutbox.spi.Publisher} bean. A route is an
 * exact type ({@code order.placed}) or a prefix ending in {@code *} ({@code email.*}); an exact route wins
 * over a prefix, a longer prefix over a shorter one, and an event no route matches goes dead with the
 * reason. Two handler beans with the same route stop the application at start-up.
 *
 * <pre>{@code
 * @Bean
 * OutboxHandler billing(BillingService billing) {
 *     return OutboxHandler.of("order.placed", event -> billing.charge(event.payloadAsString()));
 * }
 * }</pre>
 *
 * <p>Returning normally means done; throwing retries the event with backoff, and {@link
 * io.txoutbox.handler.PermanentFailureException} makes it dead at once. Handlers run on the relay's
 * thread, one event after the other, and must be idempotent: delivery is at least once.
 */
public interface OutboxHandler extends EventHandler {

    /** @return the exact event type, or a prefix ending in {@code *}, this handler takes */
    String route();

    /**
     * @param route the exact event type, or a prefix ending in {@code *}
     * @param handler what to do with each event
     * @return a handler bean for that route
     */
    static OutboxHandler of(String route, EventHandler handler) {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(handler, "handler");
        return new OutboxHandler() {
            @Override
            public String route() {
                return route;
            }

            @Override
            public void handle(ClaimedEvent event) throws Exception {
                handler.handle(event);
            }

            @Override
            public String toString() {
                return "OutboxHandler[" + route + "]";
            }
        };
    }
}
