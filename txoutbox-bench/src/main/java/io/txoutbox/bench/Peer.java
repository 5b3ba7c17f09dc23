package io.txoutbox.bench;

import com.gruelbox.transactionoutbox.DefaultPersistor;
import com.gruelbox.transactionoutbox.Dialect;
import com.gruelbox.transactionoutbox.ExecutorSubmitter;
import com.gruelbox.transactionoutbox.Instantiator;
import com.gruelbox.transactionoutbox.Submitter;
import com.gruelbox.transactionoutbox.ThreadLocalContextTransactionManager;
import com.gruelbox.transactionoutbox.TransactionManager;
import com.gruelbox.transactionoutbox.TransactionOutbox;
import com.gruelbox.transactionoutbox.TransactionOutboxEntry;
import com.gruelbox.transactionoutbox.TransactionOutboxListener;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The peer, gruelbox transaction-outbox, set up as its README recommends for an application without a
 * transaction manager: {@code TransactionManager.fromDataSource} on a HikariCP pool, {@code
 * DefaultPersistor} with {@code Dialect.POSTGRESQL_9} (SKIP LOCKED), its own migrations ({@code
 * TXNO_OUTBOX} in the run's schema), an {@code ExecutorSubmitter} that runs each entry right after the
 * commit, and background threads that loop {@code while (outbox.flush()) {}} for the backlog. The
 * settings a user would tune, and which we state in BENCHMARKS.md: the executor ({@link
 * #EXECUTOR_THREADS} threads instead of the common pool, which has one thread on two cores), and the
 * flush batch (its default, 4096).
 */
final class Peer implements AutoCloseable {
    static final int EXECUTOR_THREADS = 4;
    static final String SETTINGS = "gruelbox transactionoutbox-core " + "4.2.268"
            + ": TransactionManager.fromDataSource(HikariCP), DefaultPersistor(Dialect.POSTGRESQL_9, migrate=true),"
            + " ExecutorSubmitter on a fixed pool of " + EXECUTOR_THREADS + " threads per instance,"
            + " flushBatchSize 4096 (default), attemptFrequency 2 min (default), blockAfterAttempts 5 (default);"
            + " backlog drained by threads looping `while (outbox.flush()) {}`";

    final ThreadLocalContextTransactionManager transactions;
    final TransactionOutbox outbox;
    private final ExecutorService executor;
    private final List<Thread> flushers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;

    /**
     * @param submitNow run entries right after the commit (the peer's normal mode); false keeps them for
     *     flush only (W1 measures the append alone, as txoutbox runs there without a relay)
     */
    Peer(DataSource dataSource, Sink sink, Recorder recorder, boolean submitNow) {
        this.transactions = TransactionManager.fromDataSource(dataSource);
        this.executor = Executors.newFixedThreadPool(EXECUTOR_THREADS, r -> {
            Thread t = new Thread(r, "peer-worker");
            t.setDaemon(true);
            return t;
        });
        PeerHandler handler = (eventId, aggregateId, payload) -> {
            UUID id = UUID.fromString(eventId);
            try {
                sink.send(List.of(new Sink.Event(id, aggregateId, payload.getBytes(StandardCharsets.UTF_8))));
            } catch (Exception e) {
                throw new IllegalStateException("send failed: " + e, e);
            }
            recorder.confirm(id);
        };
        Submitter submitter =
                submitNow ? ExecutorSubmitter.builder().executor(executor).build() : (entry, processor) -> {};
        this.outbox = TransactionOutbox.builder()
                .transactionManager(transactions)
                .persistor(DefaultPersistor.builder()
                        .dialect(Dialect.POSTGRESQL_9)
                        .migrate(true)
                        .build())
                .instantiator(Instantiator.using(c -> handler))
                .submitter(submitter)
                .listener(new TransactionOutboxListener() {
                    @Override
                    public void success(TransactionOutboxEntry entry) {
                        recorder.confirmedCount(1);
                    }
                })
                .build();
    }

    /** Schedules one event in the caller's peer transaction. */
    void schedule(UUID id, String aggregateId, String payload) {
        outbox.schedule(PeerHandler.class).handle(id.toString(), aggregateId, payload);
    }

    /**
     * Loads {@code n} due entries: one scheduled through the API (so the serialized call is the peer's
     * own), copied with SQL.
     */
    void load(Pg pg, DataSource dataSource, int n) {
        // The template goes through an instance that never submits: one that does could process and
        // delete it before it is copied.
        Peer quiet = new Peer(dataSource, Sink.NOOP, new Recorder(false), false);
        try {
            quiet.transactions.inTransaction(() -> quiet.schedule(UUID.randomUUID(), "order-1", "{\"orderId\":1}"));
        } finally {
            quiet.close();
        }
        String t = pg.table("txno_outbox");
        pg.exec("INSERT INTO " + t + " (id, invocation, nextAttemptTime, attempts, blocked, version, processed)"
                + " SELECT gen_random_uuid()::text, replace(o.invocation, '\"order-1\"',"
                + " '\"order-' || (g % 1000) || '\"'), now() - interval '1 second', 0, false, 1, false"
                + " FROM " + t + " o, generate_series(1, " + (n - 1) + ") g");
        pg.exec("UPDATE " + t + " SET nextAttemptTime = now() - interval '1 second'");
        pg.exec("VACUUM ANALYZE " + t);
    }

    /** Starts {@code n} background threads looping flush, as the README's background worker does. */
    void startFlushing(int n) {
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(
                    () -> {
                        while (running) {
                            try {
                                boolean more = outbox.flush();
                                if (!more) {
                                    Thread.sleep(50);
                                }
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                failure.compareAndSet(null, e);
                            }
                        }
                    },
                    "peer-flush-" + i);
            t.setDaemon(true);
            flushers.add(t);
            t.start();
        }
    }

    @Override
    public void close() {
        running = false;
        for (Thread t : flushers) {
            t.interrupt();
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
