package io.txoutbox.mqtt;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One message on its way: where it goes, its bytes, and its acknowledgement, which completes when the
 * broker confirmed it (PUBACK for QoS 1, PUBCOMP for QoS 2) or fails.
 */
final class Delivery {
    final String topic;
    final byte[] message;
    final CompletableFuture<Void> ack = new CompletableFuture<>();
    private final AtomicBoolean holdsSlot = new AtomicBoolean();

    Delivery(String topic, byte[] message) {
        this.topic = topic;
        this.message = message;
    }

    void takeSlot() {
        holdsSlot.set(true);
    }

    /** @return true exactly once for a delivery that took a slot of the window */
    boolean giveBackSlot() {
        return holdsSlot.compareAndSet(true, false);
    }
}
