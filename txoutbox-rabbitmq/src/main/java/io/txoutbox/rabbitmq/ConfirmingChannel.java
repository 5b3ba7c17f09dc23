package io.txoutbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import io.txoutbox.internal.transport.PreparedBatch;
import io.txoutbox.spi.PublishOutcome;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One channel in confirm mode that carries one batch at a time: it maps each delivery tag to the
 * event it carries and settles the event when the broker acks, nacks or returns it, or when the
 * channel closes.
 *
 * <p>RabbitMQ sends {@code basic.return} for an unroutable mandatory message before the
 * {@code basic.ack} of that message, on the same channel, and the client calls both listeners in
 * frame order on its connection thread: so a return is recorded by message id first, and the ack
 * that follows turns it into a dead outcome instead of a published one.
 */
final class ConfirmingChannel implements ConfirmListener, ReturnListener, ShutdownListener {
    private final Channel channel;
    private final String exchange;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition settled = lock.newCondition();
    // All below guarded by lock.
    private final NavigableMap<Long, Integer> unconfirmed = new TreeMap<>();
    private final Map<String, String> returned = new HashMap<>();
    private PreparedBatch<AMQP.BasicProperties> inFlight; // the batch being confirmed, null between batches
    private ShutdownSignalException shutdown;

    private ConfirmingChannel(Channel channel, String exchange) {
        this.channel = channel;
        this.exchange = exchange;
    }

    static ConfirmingChannel open(Connection connection, String exchange) throws IOException {
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("RabbitMQ refused a new channel: the connection's channel-max is reached");
        }
        return of(channel, exchange);
    }

    /** Puts a fresh channel in confirm mode and listens to it; a test adds listeners of its own after. */
    static ConfirmingChannel of(Channel channel, String exchange) throws IOException {
        ConfirmingChannel confirming = new ConfirmingChannel(channel, exchange);
        channel.addShutdownListener(confirming);
        channel.addConfirmListener(confirming);
        channel.addReturnListener(confirming);
        channel.confirmSelect();
        return confirming;
    }

    boolean isOpen() {
        return channel.isOpen();
    }

    /**
     * Publishes the batch's ready events and waits until each is settled or the timeout passes. Sets
     * their outcomes in the batch.
     *
     * <p>However it ends, the channel lets go of the batch under its lock before it returns or throws:
     * a confirm or return that arrives later finds no batch and changes no outcome, so the caller may
     * fill the outcomes left without one.
     *
     * @return whether the channel is clean for the next batch (everything settled, still open)
     * @throws InterruptedException when interrupted while waiting for the confirms; the events not
     *     settled by then have no outcome
     */
    boolean publishAndAwait(PreparedBatch<AMQP.BasicProperties> batch, long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            inFlight = batch;
        } finally {
            lock.unlock();
        }
        try {
            return sendAndAwait(batch, timeoutNanos);
        } finally {
            // sendAndAwait releases the batch itself once it waited; this covers a send that threw.
            lock.lock();
            try {
                release();
            } finally {
                lock.unlock();
            }
        }
    }

    private boolean sendAndAwait(PreparedBatch<AMQP.BasicProperties> batch, long timeoutNanos)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        List<Integer> indexes = batch.ready();
        Exception publishFailure = null;
        int sent = 0;
        for (; sent < indexes.size(); sent++) {
            int index = indexes.get(sent);
            lock.lock();
            try {
                if (shutdown != null) {
                    break;
                }
                unconfirmed.put(channel.getNextPublishSeqNo(), index);
            } finally {
                lock.unlock();
            }
            try {
                // Outside the lock: the connection thread must be free to deliver acks while we write.
                channel.basicPublish(
                        exchange,
                        batch.destination(index),
                        true,
                        batch.message(index),
                        batch.event(index).payload());
            } catch (IOException | RuntimeException e) {
                publishFailure = e;
                sent++; // this one may or may not have left: it stays unconfirmed
                break;
            }
        }
        lock.lock();
        try {
            long left = deadline - System.nanoTime();
            while (!unconfirmed.isEmpty() && shutdown == null && publishFailure == null && left > 0) {
                left = settled.awaitNanos(left);
            }
            boolean clean = unconfirmed.isEmpty() && shutdown == null && publishFailure == null;
            PublishOutcome failure = shutdown != null
                    ? Failures.of(shutdown, exchange)
                    : publishFailure != null
                            ? Failures.of(publishFailure, exchange)
                            : PublishOutcome.retry("not confirmed by RabbitMQ within "
                                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                                    + " ms (RabbitPublisher.Builder.confirmTimeout)");
            for (int index : unconfirmed.values()) {
                batch.set(index, failure);
            }
            for (int i = sent; i < indexes.size(); i++) {
                batch.set(indexes.get(i), failure);
            }
            return clean;
        } finally {
            // In the same hold as the outcomes above, and when the wait was interrupted (awaitNanos
            // throws holding the lock): no confirm gets between the outcomes and the release.
            release();
            lock.unlock();
        }
    }

    /** Forgets the batch in flight, so that later confirms and returns settle nothing. Lock held. */
    private void release() {
        unconfirmed.clear();
        returned.clear();
        inFlight = null;
    }

    @Override
    public void handleAck(long deliveryTag, boolean multiple) {
        settle(deliveryTag, multiple, true);
    }

    @Override
    public void handleNack(long deliveryTag, boolean multiple) {
        settle(deliveryTag, multiple, false);
    }

    private void settle(long deliveryTag, boolean multiple, boolean ack) {
        lock.lock();
        try {
            if (inFlight == null) {
                return; // a late confirm of a batch that timed out: it already counts as a retry
            }
            Map<Long, Integer> confirmed = multiple
                    ? unconfirmed.headMap(deliveryTag, true)
                    : unconfirmed.subMap(deliveryTag, true, deliveryTag, true);
            for (int index : confirmed.values()) {
                String unroutable = returned.remove(inFlight.event(index).id().toString());
                if (!ack) {
                    inFlight.set(
                            index,
                            PublishOutcome.retry("nacked by RabbitMQ: it could not take responsibility for the message"
                                    + " (for example a queue that rejects publishes when full)"));
                } else if (unroutable != null) {
                    inFlight.set(index, PublishOutcome.dead(unroutable));
                } else {
                    inFlight.set(index, PublishOutcome.PUBLISHED);
                }
            }
            confirmed.clear();
            if (unconfirmed.isEmpty()) {
                settled.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void handleReturn(
            int replyCode,
            String replyText,
            String returnedExchange,
            String routingKey,
            AMQP.BasicProperties properties,
            byte[] body) {
        lock.lock();
        try {
            if (inFlight != null && properties.getMessageId() != null) {
                returned.put(
                        properties.getMessageId(),
                        "unroutable: " + replyText + " exchange=" + Messages.describeExchange(returnedExchange)
                                + " routing key=" + routingKey);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        lock.lock();
        try {
            shutdown = cause;
            settled.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void closeQuietly() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            // The channel or its connection is already broken: nothing left to release.
        }
    }
}
