package io.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * W2's relay in another JVM: it shares nothing with the producers but the database, so it is woken only
 * by what a relay in another process gets (the appenders' after-commit notifications, or the trigger of
 * writers that are not txoutbox). Its no-op publisher writes {@code <id> <System.nanoTime()>} per
 * confirmed event to standard output; on Linux {@code nanoTime} reads {@code CLOCK_MONOTONIC}, the same
 * clock in every process, so the parent computes commit-to-confirmation latencies. It prints {@code
 * ready} once listening, and halts when its parent goes away (standard input ends).
 */
final class RemoteRelayMain {
    private RemoteRelayMain() {}

    /**
     * @param args JDBC URL, user, schema, table, batch size
     * @throws Exception when the relay cannot start
     */
    public static void main(String[] args) throws Exception {
        startDaemon("parent-watchdog", RemoteRelayMain::haltWhenParentGoes);

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setSchema(args[2]);
        // Sized as the README asks: the relay's connections at once with its defaults, LISTEN included (a pool
        // one short made a claim wait for the rescan beside it, a second under dead entries).
        config.setMaximumPoolSize(Relay.Builder.connectionsAtOnce(Relay.Builder.DEFAULT_MAX_IN_FLIGHT_BATCHES, true));
        config.addDataSourceProperty("ApplicationName", "txbench-remote-relay");
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16);
        ReentrantLock lock = new ReentrantLock();
        startDaemon("confirm-flusher", () -> {
            while (true) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                lock.lock();
                try {
                    out.flush();
                } catch (IOException e) {
                    Runtime.getRuntime().halt(3);
                } finally {
                    lock.unlock();
                }
            }
        });
        HikariDataSource pool = new HikariDataSource(config);
        Outbox outbox =
                Outbox.builder(pool).table(args[3]).dialect(Dialect.POSTGRESQL).build();
        Relay relay = outbox.relay(batch -> {
                    long now = System.nanoTime();
                    lock.lock();
                    try {
                        for (ClaimedEvent e : batch) {
                            out.write(e.id().toString());
                            out.write(' ');
                            out.write(Long.toString(now));
                            out.write('\n');
                        }
                    } catch (IOException e) {
                        Runtime.getRuntime().halt(3);
                    } finally {
                        lock.unlock();
                    }
                    return CompletableFuture.completedFuture(
                            Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
                })
                .name("w2-remote")
                .batchSize(Integer.parseInt(args[4]))
                .build();
        relay.start();
        lock.lock();
        try {
            out.write("ready\n");
            out.flush();
        } finally {
            lock.unlock();
        }
        Thread.currentThread().join();
    }

    /** Blocks until standard input ends, when the parent closes it or dies, then halts this JVM. */
    private static void haltWhenParentGoes() {
        try {
            while (System.in.read() >= 0) {
                // Nothing is written; the stream ends when the parent closes it or dies.
            }
        } catch (IOException e) {
            // The parent is gone either way.
        }
        Runtime.getRuntime().halt(0);
    }

    private static void startDaemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }
}
