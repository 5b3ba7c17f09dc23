package io.txoutbox.internal.transport;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Router;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * A batch's events made ready for the broker, each one routed, its destination checked and its message
 * built, with one outcome slot per event in batch order. An event for which a step fails has its {@code
 * DEAD} outcome at once: the same event routes and maps the same way on every attempt, so retrying
 * cannot help. Not thread-safe: whoever sets outcomes from other threads orders those writes (a lock).
 *
 * @param <M> what the transport sends beside the payload (headers, properties)
 */
public final class PreparedBatch<M> {
    private final List<ClaimedEvent> events;
    private final String[] destinations;
    private final List<M> messages;
    private final PublishOutcome[] outcomes;
    private final List<Integer> ready;

    private PreparedBatch(List<ClaimedEvent> events) {
        this.events = events;
        this.destinations = new String[events.size()];
        this.messages = new ArrayList<>(Collections.nCopies(events.size(), null));
        this.outcomes = new PublishOutcome[events.size()];
        this.ready = new ArrayList<>(events.size());
    }

    /**
     * Routes every event and checks its destination ({@link Route#of}), then builds its message: an event
     * whose message cannot be built is {@code DEAD} with {@code "<messageName> could not be built: <error
     * message>"}.
     *
     * @param batch the claimed events, in batch order
     * @param router gives each event's destination
     * @param destinationProblem why a destination can never be published to, or {@code null} when it can
     * @param message builds an event's message; a {@link RuntimeException} from it makes the event dead
     * @param messageName the message in the reason of that outcome, for example {@code the NATS message}
     * @param <M> what the transport sends beside the payload
     * @return the batch; the events that passed every step are {@link #ready()}
     */
    public static <M> PreparedBatch<M> prepare(
            List<ClaimedEvent> batch,
            Router router,
            Function<String, String> destinationProblem,
            Function<ClaimedEvent, ? extends M> message,
            String messageName) {
        PreparedBatch<M> prepared = new PreparedBatch<>(batch);
        for (int i = 0; i < batch.size(); i++) {
            ClaimedEvent event = batch.get(i);
            Route route = Route.of(event, router, destinationProblem);
            if (route.dead() != null) {
                prepared.outcomes[i] = route.dead();
                continue;
            }
            M built;
            try {
                built = message.apply(event);
            } catch (RuntimeException e) {
                prepared.outcomes[i] = PublishOutcome.dead(messageName + " could not be built: " + e.getMessage());
                continue;
            }
            prepared.destinations[i] = route.destination();
            prepared.messages.set(i, built);
            prepared.ready.add(i);
        }
        return prepared;
    }

    /** @return the indexes of the events to send, in batch order; the others have their outcome */
    public List<Integer> ready() {
        return Collections.unmodifiableList(ready);
    }

    /**
     * @param index an index in the batch
     * @return the event there
     */
    public ClaimedEvent event(int index) {
        return events.get(index);
    }

    /**
     * @param index the index of a {@link #ready()} event
     * @return its destination, as the router gave it
     */
    public String destination(int index) {
        return destinations[index];
    }

    /**
     * @param index the index of a {@link #ready()} event
     * @return its message
     */
    public M message(int index) {
        return messages.get(index);
    }

    /**
     * @param index an index in the batch
     * @param outcome the event's outcome, replacing any it had
     */
    public void set(int index, PublishOutcome outcome) {
        outcomes[index] = outcome;
    }

    /** @param outcome the outcome of every event that has none yet */
    public void fillMissing(PublishOutcome outcome) {
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                outcomes[i] = outcome;
            }
        }
    }

    /** @return one outcome per event, in batch order; {@code null} where an event has none yet */
    public List<PublishOutcome> outcomes() {
        return Arrays.asList(outcomes);
    }
}
