package io.txoutbox.relay;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A latch that remembers a wake-up given while nobody waited, so none is lost between two checks. */
final class WakeSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean signalled;

    void signal() {
        lock.lock();
        try {
            signalled = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** @return whether a wake-up came since the last {@link #await} or {@code consume}; clears it */
    boolean consume() {
        lock.lock();
        try {
            boolean was = signalled;
            signalled = false;
            return was;
        } finally {
            lock.unlock();
        }
    }

    /** @return whether a wake-up came (rather than the timeout) */
    boolean await(Duration timeout) {
        lock.lock();
        try {
            long nanos = timeout.toNanos();
            while (!signalled && nanos > 0) {
                nanos = woken.awaitNanos(nanos);
            }
            boolean was = signalled;
            signalled = false;
            return was;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }
}
