package io.txoutbox.mqtt;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounds how many messages are unacknowledged at once, across every batch that shares the publisher, so
 * that Paho's in-flight limit is never hit: a batch larger than the window goes out as acknowledgements
 * free slots. Never blocks; never calls the sender while holding its lock.
 */
final class DeliveryWindow {
    /** Sends one message; completes its {@link Delivery#ack} later and then releases it, or throws at once. */
    interface Sender {
        void send(Delivery delivery, DeliveryWindow window) throws Exception;
    }

    private final int capacity;
    private final Sender sender;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Delivery> waiting = new ArrayDeque<>();
    private int inFlight;

    DeliveryWindow(int capacity, Sender sender) {
        this.capacity = capacity;
        this.sender = sender;
    }

    /** Queues the deliveries and sends as many as the window allows. */
    void submit(Collection<Delivery> deliveries) {
        lock.lock();
        try {
            waiting.addAll(deliveries);
        } finally {
            lock.unlock();
        }
        drain();
    }

    /** Frees the delivery's slot (once; later calls do nothing) and sends what waits. */
    void release(Delivery delivery) {
        if (giveBack(delivery)) {
            drain();
        }
    }

    /** @return whether the delivery held a slot, now free (true once per delivery) */
    private boolean giveBack(Delivery delivery) {
        if (!delivery.giveBackSlot()) {
            return false;
        }
        lock.lock();
        try {
            inFlight--;
        } finally {
            lock.unlock();
        }
        return true;
    }

    private void drain() {
        while (true) {
            Delivery next;
            lock.lock();
            try {
                if (inFlight >= capacity) {
                    return;
                }
                do {
                    next = waiting.poll();
                } while (next != null && next.ack.isDone()); // given up by its batch (timed out): skip
                if (next == null) {
                    return;
                }
                inFlight++;
                next.takeSlot();
            } finally {
                lock.unlock();
            }
            try {
                sender.send(next, this);
            } catch (Exception e) {
                next.ack.completeExceptionally(e);
                giveBack(next); // the loop goes on with the next waiting delivery
            }
        }
    }

    /** @return messages sent and not yet acknowledged */
    int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }
}
