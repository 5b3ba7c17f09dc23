package io.txoutbox.reliability;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.reliability.Ledger.Appended;
import io.txoutbox.reliability.Ledger.TxOutcome;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Producer threads in the test JVM: each runs transactions of 1 to 8 events with a random commit delay
 * and a random rollback, at a bounded rate, and records every outcome in the {@link Ledger}. In ordered
 * mode each thread owns its aggregates, so one aggregate's transactions never race and append order is
 * the thread's order.
 */
final class Producers {
    private final Outbox outbox;
    private final DataSource dataSource;
    private final Ledger ledger;
    private final int threads;
    private final double eventsPerSecond;
    private final boolean ordered;
    private final long seed;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong committedEvents = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final List<Thread> workers = new ArrayList<>();
    private final long[] burstSeq = new long[200];
    private final AtomicReference<Throwable> crash = new AtomicReference<>();

    Producers(
            Outbox outbox,
            DataSource dataSource,
            Ledger ledger,
            int threads,
            double eventsPerSecond,
            boolean ordered,
            long seed) {
        this.outbox = outbox;
        this.dataSource = dataSource;
        this.ledger = ledger;
        this.threads = threads;
        this.eventsPerSecond = eventsPerSecond;
        this.ordered = ordered;
        this.seed = seed;
    }

    /** Adds one event to a transaction's events and its record to what the ledger will hold. */
    private static void add(
            List<OutboxEvent> events, List<Appended> records, String aggregateId, long seq, String payload) {
        OutboxEvent event = OutboxEvent.builder("chaos.happened")
                .aggregate("order", aggregateId)
                .jsonPayload(payload)
                .build();
        events.add(event);
        records.add(new Appended(event.id(), aggregateId, seq, payload));
    }

    void start() {
        for (int t = 0; t < threads; t++) {
            int producer = t;
            Thread worker = new Thread(() -> produce(producer), "chaos-producer-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
    }

    /** Stops producing and waits for the transactions in flight to end. */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread worker : workers) {
            worker.join(30_000);
        }
    }

    long committedEvents() {
        return committedEvents.get();
    }

    /** @return transactions that failed on their own (a terminated backend), not by a planned rollback */
    long failures() {
        return failures.get();
    }

    /** @return the first unexpected failure that ended a producer thread, or {@code null} */
    Throwable crash() {
        return crash.get();
    }

    private void produce(int producer) {
        try {
            produceUntilStopped(producer);
        } catch (Throwable t) {
            crash.compareAndSet(null, t);
            throw t;
        }
    }

    private void produceUntilStopped(int producer) {
        SplittableRandom random = new SplittableRandom(seed * 31 + producer);
        int aggregates = ordered ? 100 : 500;
        long[] nextSeq = new long[aggregates];
        double perThread = eventsPerSecond / threads;
        long started = System.nanoTime();
        long produced = 0;
        while (running.get()) {
            int size = 1 + random.nextInt(8);
            List<OutboxEvent> events = new ArrayList<>(size);
            List<Appended> records = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                int a = random.nextInt(aggregates);
                String aggregateId = ordered ? "p" + producer + "-a" + a : "a" + a;
                long seq = nextSeq[a]++;
                String payload = "{\"producer\":" + producer + ",\"aggregate\":\"" + aggregateId + "\",\"seq\":" + seq
                        + ",\"pad\":\"" + "x".repeat(random.nextInt(200)) + "\"}";
                add(events, records, aggregateId, seq, payload);
            }
            boolean rollback = random.nextInt(100) < 8;
            long commitDelay = random.nextInt(100) < 30 ? random.nextInt(15) : 0;
            ledger.record(records, run(events, rollback, commitDelay));
            produced += size;
            long dueNanos = (long) (produced / perThread * 1e9);
            long ahead = dueNanos - (System.nanoTime() - started);
            if (ahead > 0) {
                sleepNanos(ahead);
            }
        }
    }

    private TxOutcome run(List<OutboxEvent> events, boolean rollback, long commitDelayMillis) {
        Connection c;
        try {
            c = dataSource.getConnection();
        } catch (SQLException e) {
            failures.incrementAndGet();
            return TxOutcome.ROLLED_BACK;
        }
        try {
            c.setAutoCommit(false);
            try {
                outbox.appendAll(c, events);
                if (commitDelayMillis > 0) {
                    Thread.sleep(commitDelayMillis);
                }
            } catch (RuntimeException | InterruptedException | AssertionError e) {
                // AssertionError: pgjdbc 42.7.8 under -ea (as surefire runs) throws it from executeBatch when
                // the backend is terminated mid-batch (pgjdbc #1458); without -ea it is an SQLException.
                failures.incrementAndGet();
                rollbackQuietly(c);
                closeQuietly(c);
                return TxOutcome.ROLLED_BACK;
            }
            if (rollback) {
                c.rollback();
                closeQuietly(c);
                return TxOutcome.ROLLED_BACK;
            }
        } catch (SQLException e) {
            // setAutoCommit or the planned rollback failed: nothing was committed.
            failures.incrementAndGet();
            closeQuietly(c);
            return TxOutcome.ROLLED_BACK;
        }
        try {
            c.commit();
        } catch (SQLException e) {
            failures.incrementAndGet();
            return TxOutcome.UNKNOWN;
        } finally {
            closeQuietly(c);
        }
        committedEvents.addAndGet(events.size());
        return TxOutcome.COMMITTED;
    }

    /**
     * Appends a burst of committed events from the calling thread, so that the relays have a backlog
     * (and a batch in flight) when the next fault hits. In ordered mode the burst uses aggregates of its
     * own, appended only by the caller, so their append order is the caller's order.
     *
     * @return how many events were committed
     */
    long burst(int events, SplittableRandom random) {
        long committed = 0;
        for (int done = 0; done < events; done += 100) {
            List<OutboxEvent> batch = new ArrayList<>();
            List<Appended> records = new ArrayList<>();
            for (int i = 0; i < Math.min(100, events - done); i++) {
                int a = random.nextInt(burstSeq.length);
                String aggregateId = ordered ? "burst-a" + a : "a" + a;
                long seq = burstSeq[a]++;
                String payload = "{\"producer\":\"burst\",\"aggregate\":\"" + aggregateId + "\",\"seq\":" + seq + "}";
                add(batch, records, aggregateId, seq, payload);
            }
            TxOutcome outcome = run(batch, false, 0);
            ledger.record(records, outcome);
            if (outcome == TxOutcome.COMMITTED) {
                committed += batch.size();
            }
        }
        return committed;
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // A broken connection: the pool drops it.
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // The connection is broken: the server has rolled the transaction back already.
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
