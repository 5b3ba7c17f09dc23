package io.txoutbox.webhook;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which endpoints already answered 2xx for an event that still has to be retried elsewhere, so that a
 * retry in this publisher goes only to the endpoints that still need it. In memory, bounded (the
 * oldest entries are forgotten first) and a pure optimisation: forgetting an entry, a restart or another
 * relay taking the event over only sends a duplicate to an endpoint that already had it, which
 * at-least-once delivery allows; it can never skip an endpoint that did not answer 2xx.
 */
final class DeliveryMemory {
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<UUID, Set<String>> accepted;

    /** @param capacity how many events to remember at most; 0 remembers nothing */
    DeliveryMemory(int capacity) {
        this.capacity = capacity;
        this.accepted = new LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<UUID, Set<String>> eldest) {
                return size() > DeliveryMemory.this.capacity;
            }
        };
    }

    /** @return the names of the endpoints that accepted this event before, possibly empty */
    Set<String> acceptedBy(UUID event) {
        lock.lock();
        try {
            Set<String> names = accepted.get(event);
            return names == null ? Set.of() : Set.copyOf(names);
        } finally {
            lock.unlock();
        }
    }

    /** Remembers endpoints that answered 2xx for an event that is retried. */
    void remember(UUID event, Collection<String> endpoints) {
        if (capacity == 0 || endpoints.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            accepted.computeIfAbsent(event, id -> new HashSet<>()).addAll(endpoints);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets an event that is done: published everywhere, or dead. */
    void forget(UUID event) {
        lock.lock();
        try {
            accepted.remove(event);
        } finally {
            lock.unlock();
        }
    }

    /** @return how many events are remembered */
    int size() {
        lock.lock();
        try {
            return accepted.size();
        } finally {
            lock.unlock();
        }
    }
}
