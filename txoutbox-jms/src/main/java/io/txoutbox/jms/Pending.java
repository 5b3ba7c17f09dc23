package io.txoutbox.jms;

import io.txoutbox.spi.PublishOutcome;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The asynchronous sends of one lane's share of a batch that still wait for their completion: the
 * provider's threads settle them, the lane thread waits for them with a deadline, and a lost
 * connection aborts the wait at once.
 */
final class Pending {
    private final AtomicReferenceArray<PublishOutcome> outcomes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Set<Integer> waiting = new HashSet<>(); // guarded by lock
    private String aborted; // guarded by lock

    Pending(AtomicReferenceArray<PublishOutcome> outcomes) {
        this.outcomes = outcomes;
    }

    /** Called before an asynchronous send of the event at {@code index}. */
    void expect(int index) {
        lock.lock();
        try {
            waiting.add(index);
        } finally {
            lock.unlock();
        }
    }

    /** Stops waiting for {@code index} without an outcome: the caller sets it another way. */
    void forget(int index) {
        lock.lock();
        try {
            waiting.remove(index);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Records the outcome of {@code index} unless its wait is over (a late completion counts for nothing). */
    void settle(int index, PublishOutcome outcome) {
        lock.lock();
        try {
            if (waiting.remove(index)) {
                outcomes.compareAndSet(index, null, outcome);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Ends the wait at once: the connection is lost and no completion will come. */
    void abort(String reason) {
        lock.lock();
        try {
            aborted = reason;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every expected send is settled, the wait is aborted or the deadline passes; then every
     * send still waiting becomes a retry.
     *
     * @return whether everything was settled
     */
    boolean await(long deadlineNanos, String timeoutReason) throws InterruptedException {
        lock.lock();
        try {
            while (!waiting.isEmpty() && aborted == null) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                changed.awaitNanos(left);
            }
            boolean settled = waiting.isEmpty();
            PublishOutcome unsettled = PublishOutcome.retry(aborted != null ? aborted : timeoutReason);
            for (int index : waiting) {
                outcomes.compareAndSet(index, null, unsettled);
            }
            waiting.clear();
            return settled;
        } finally {
            lock.unlock();
        }
    }
}
