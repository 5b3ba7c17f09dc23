package io.txoutbox.debezium;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Producers that keep appending until stopped, each transaction with the outbox the test has switched
 * them to at that moment (relay mode or CDC mode), every seventh one rolled back. Each committed event is
 * recorded with the phase the test was in when it committed.
 */
final class LiveProducers implements AutoCloseable {
    private final AtomicReference<Outbox> current;
    private final AtomicInteger generation = new AtomicInteger();
    private final AtomicInteger[] seen;
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentHashMap<OutboxEvent, String> committed = new ConcurrentHashMap<>();
    private final List<OutboxEvent> rolledBack = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile String phase = "start";
    private volatile boolean stop;

    LiveProducers(DataSource ds, int count, Outbox initial) {
        this.current = new AtomicReference<>(initial);
        this.seen = new AtomicInteger[count];
        for (int t = 0; t < count; t++) {
            int thread = t;
            seen[t] = new AtomicInteger();
            Thread th = new Thread(() -> produce(ds, thread), "producer-" + t);
            th.setDaemon(true);
            threads.add(th);
        }
        threads.forEach(Thread::start);
    }

    private void produce(DataSource ds, int thread) {
        Random random = new Random(thread);
        try {
            for (int i = 0; !stop; i++) {
                seen[thread].set(generation.get());
                Outbox outbox = current.get();
                List<OutboxEvent> events = new ArrayList<>();
                for (int e = 0; e <= i % 2; e++) {
                    events.add(Producers.event(thread, i, e, random, null));
                }
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    List<OutboxEvent> written = outbox.appendAll(c, events);
                    if (i % 7 == 3) {
                        c.rollback();
                        rolledBack.addAll(written);
                    } else {
                        c.commit();
                        String at = phase;
                        written.forEach(w -> committed.put(w, at));
                    }
                }
                // Paced, so that a test of a few seconds stays at a few thousand events.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(4));
            }
        } catch (SQLException | RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Producers take {@code outbox} from their next transaction on. */
    void switchTo(Outbox outbox) {
        current.set(outbox);
        generation.incrementAndGet();
    }

    /** @return true once no transaction started before the last {@link #switchTo} is still running */
    boolean switched() {
        int now = generation.get();
        for (AtomicInteger s : seen) {
            if (s.get() != now) {
                return false;
            }
        }
        return true;
    }

    void phase(String phase) {
        this.phase = phase;
    }

    int committedCount() {
        checkHealthy();
        return committed.size();
    }

    /** @return every committed event and the phase it committed in */
    java.util.Map<OutboxEvent, String> committed() {
        return java.util.Map.copyOf(committed);
    }

    List<OutboxEvent> rolledBack() {
        return List.copyOf(rolledBack);
    }

    void checkHealthy() {
        if (failure.get() != null) {
            throw new AssertionError("a producer failed", failure.get());
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(10_000);
        }
        checkHealthy();
    }
}
