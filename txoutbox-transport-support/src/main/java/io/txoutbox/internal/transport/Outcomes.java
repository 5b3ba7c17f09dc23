package io.txoutbox.internal.transport;

import io.txoutbox.spi.PublishOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** A batch's outcomes as the threads of its sends set them, one slot per event. */
public final class Outcomes {
    private Outcomes() {}

    /**
     * @param outcomes one slot per event, in batch order; {@code null} where the event has no outcome yet
     * @param missing the outcome of every event without one (no answer in time, a send that failed whole)
     * @return the outcomes in batch order, {@code missing} in the empty slots
     */
    public static List<PublishOutcome> orElse(AtomicReferenceArray<PublishOutcome> outcomes, PublishOutcome missing) {
        List<PublishOutcome> result = new ArrayList<>(outcomes.length());
        for (int i = 0; i < outcomes.length(); i++) {
            PublishOutcome o = outcomes.get(i);
            result.add(o != null ? o : missing);
        }
        return result;
    }
}
