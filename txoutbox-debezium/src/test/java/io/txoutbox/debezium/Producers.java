package io.txoutbox.debezium;

import io.txoutbox.EventHeaders;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/**
 * Producers that append with txoutbox in their own transactions: each thread owns its aggregates, so its
 * append order is each aggregate's order. Every seventh transaction rolls back. Events vary in what the
 * router must carry: JSON and binary payloads, versions, tenants, destinations and headers.
 */
final class Producers {
    private final List<OutboxEvent> committed = Collections.synchronizedList(new ArrayList<>());
    private final List<OutboxEvent> rolledBack = Collections.synchronizedList(new ArrayList<>());

    /**
     * Runs {@code threads} producers of {@code transactions} each, and waits for them.
     *
     * @param outboxOfTransaction the outbox a transaction appends with (lets a test switch producers between
     *     modes while they run)
     */
    void run(DataSource ds, int threads, int transactions, IntFunction<Outbox> outboxOfTransaction, String destination)
            throws InterruptedException {
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread th = new Thread(() -> produce(ds, thread, transactions, outboxOfTransaction, destination));
            th.start();
            running.add(th);
        }
        for (Thread th : running) {
            th.join();
        }
    }

    private void produce(
            DataSource ds, int thread, int transactions, IntFunction<Outbox> outboxOf, String destination) {
        Random random = new Random(thread);
        for (int i = 0; i < transactions; i++) {
            Outbox outbox = outboxOf.apply(i);
            List<OutboxEvent> events = new ArrayList<>();
            for (int e = 0; e <= i % 3; e++) {
                events.add(event(thread, i, e, random, destination));
            }
            boolean rollback = i % 7 == 3;
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                List<OutboxEvent> written = outbox.appendAll(c, events);
                if (rollback) {
                    c.rollback();
                    rolledBack.addAll(written);
                } else {
                    c.commit();
                    committed.addAll(written);
                }
            } catch (SQLException ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    static OutboxEvent event(int thread, int tx, int n, Random random, String destination) {
        String aggregateId = "agg-" + thread + "-" + (tx % 10);
        OutboxEvent.Builder b = OutboxEvent.builder(n == 0 ? "order.placed" : "order.line-added")
                .aggregate(thread % 2 == 0 ? "order" : "payment", aggregateId)
                .version(1 + tx % 2)
                .header(EventHeaders.CORRELATION_ID, "corr-" + thread + "-" + tx)
                .header("x-position", Integer.toString(n));
        if (tx % 2 == 0) {
            b.jsonPayload("{\"thread\":" + thread + ",\"tx\":" + tx + ",\"n\":" + n + ",\"note\":\"caf\u00e9\"}");
        } else {
            byte[] bytes = new byte[1 + random.nextInt(300)];
            random.nextBytes(bytes);
            b.payload(bytes, "application/octet-stream");
        }
        if (tx % 4 == 1) {
            b.tenant("tenant-" + thread);
        }
        if (destination != null) {
            b.destination(destination);
        }
        return b.build();
    }

    /** A last event, committed after every producer finished: once it arrives, everything before it has. */
    static OutboxEvent sentinel() {
        return OutboxEvent.builder("test.sentinel")
                .aggregate("sentinel", "end")
                .payload("end".getBytes(StandardCharsets.UTF_8), "text/plain")
                .build();
    }

    List<OutboxEvent> committed() {
        return List.copyOf(committed);
    }

    List<OutboxEvent> rolledBack() {
        return List.copyOf(rolledBack);
    }
}
