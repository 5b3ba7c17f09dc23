package io.txoutbox.test.transport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A subscription's {@link PublisherContract.Received} that keeps every arrival as the broker's client
 * delivered it, duplicates included, and reads each as a {@link PublisherContract.Message} when asked.
 * Thread-safe: clients deliver on threads of their own. A subclass says how to read an arrival and how
 * to stop the subscription ({@link #close()}).
 *
 * @param <T> an arrival as the client delivers it (a JMS message, a Kafka record...)
 */
public abstract class Arrivals<T> implements PublisherContract.Received {
    private final List<T> arrivals = new CopyOnWriteArrayList<>();

    /** For a subclass. */
    protected Arrivals() {}

    /** @param arrival what the client delivered, from any thread */
    public final void add(T arrival) {
        arrivals.add(arrival);
    }

    /** @param more what the client delivered at once, in order */
    public final void addAll(Collection<? extends T> more) {
        arrivals.addAll(more);
    }

    /** @return every arrival so far, in arrival order, as the client delivered it */
    public final List<T> raw() {
        return List.copyOf(arrivals);
    }

    /**
     * @return every arrival so far, in arrival order, read by {@link #read}
     * @throws IllegalStateException when {@code read} throws a checked exception ("cannot read a received
     *     message"); an unchecked one is thrown as it is
     */
    @Override
    public final List<PublisherContract.Message> messages() {
        List<PublisherContract.Message> messages = new ArrayList<>();
        for (T arrival : arrivals) {
            try {
                messages.add(read(arrival));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("cannot read a received message", e);
            }
        }
        return messages;
    }

    /**
     * @param arrival one arrival
     * @return its headers, as the transport mapped them, and its payload
     * @throws Exception when the client cannot read it
     */
    protected abstract PublisherContract.Message read(T arrival) throws Exception;
}
