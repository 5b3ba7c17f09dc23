package io.txoutbox.test.transport;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Calling a publisher as a relay does, for tests that publish directly. */
public final class Publishing {
    private Publishing() {}

    /**
     * Publishes one batch and waits for its outcomes.
     *
     * @param publisher the publisher under test
     * @param batch the claimed events ({@link ClaimedEvents})
     * @param timeout how long to wait for the publisher's answer
     * @return one outcome per event, as the publisher gave them
     * @throws TimeoutException when the publisher did not answer within {@code timeout}
     * @throws ExecutionException when its stage failed (a closed publisher, for one)
     * @throws InterruptedException when the test thread is interrupted while waiting
     */
    public static List<PublishOutcome> publish(Publisher publisher, List<ClaimedEvent> batch, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        return publisher.publish(batch).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
