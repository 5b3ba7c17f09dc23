package io.txoutbox.internal.transport;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Router;
import java.util.function.Function;

/**
 * Where one event goes, or why it can never go anywhere: the same event routes the same way on every
 * attempt, so a router that fails or a destination the broker refuses makes it {@code DEAD}.
 *
 * @param destination the router's destination; {@code null} when {@code dead} is set
 * @param dead the event's {@code DEAD} outcome, or {@code null} when it has a destination
 */
public record Route(String destination, PublishOutcome dead) {
    /**
     * @param event the claimed event
     * @param router gives its destination
     * @param destinationProblem why a destination can never be published to, or {@code null} when it can
     * @return its destination, or its {@code DEAD} outcome: {@code "the router failed: <error>"} or the
     *     destination's problem as it is
     */
    public static Route of(ClaimedEvent event, Router router, Function<String, String> destinationProblem) {
        return route(event, router, destinationProblem, "the router failed: ");
    }

    /**
     * Like {@link #of}, for a transport whose reasons name the event (each outcome is read apart from its
     * batch there).
     *
     * @param event the claimed event
     * @param router gives its destination
     * @param destinationProblem why a destination can never be published to, or {@code null} when it can
     * @return its destination, or its {@code DEAD} outcome: {@code "the router failed for event <id>:
     *     <error>"} or the destination's problem as it is
     */
    public static Route naming(ClaimedEvent event, Router router, Function<String, String> destinationProblem) {
        return route(event, router, destinationProblem, "the router failed for event " + event.id() + ": ");
    }

    private static Route route(
            ClaimedEvent event, Router router, Function<String, String> destinationProblem, String routerFailed) {
        String destination;
        try {
            destination = router.destinationOf(event);
        } catch (RuntimeException e) {
            return new Route(null, PublishOutcome.dead(routerFailed + e));
        }
        String problem = destinationProblem.apply(destination);
        return problem != null ? new Route(null, PublishOutcome.dead(problem)) : new Route(destination, null);
    }
}
