package io.txoutbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * The raw-SQL ceiling: what PostgreSQL itself allows on this machine, with no library. Each thread
 * loops over one transaction per batch: {@code DELETE ... WHERE id IN (SELECT ... ORDER BY available_at,
 * seq LIMIT n FOR UPDATE SKIP LOCKED) RETURNING ...}, sends the rows to the sink, waits for its
 * confirmation, and commits (so it is at least once, but holds the transaction open while the sink
 * works). When a claim comes back short it waits for a notification on the table's channel (LISTEN on
 * its own connection) or 100 ms.
 */
final class RawRelay implements AutoCloseable {
    private final DataSource dataSource;
    private final String table;
    private final String channel;
    private final int batchSize;
    private final Sink sink;
    private final Recorder recorder;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;
    private boolean leaseThenDelete;

    RawRelay(DataSource dataSource, String table, String channel, int batchSize, Sink sink, Recorder recorder) {
        this.dataSource = dataSource;
        this.table = table;
        this.channel = channel;
        this.batchSize = batchSize;
        this.sink = sink;
        this.recorder = recorder;
    }

    /**
     * Switches to txoutbox's statement pattern, written by hand: a claim that stamps a lease with an
     * {@code UPDATE ... RETURNING} and commits, then a {@code DELETE} fenced by the lease owner that
     * commits. It tells how much of txoutbox's cost is its SQL and how much its Java.
     */
    RawRelay leaseThenDelete() {
        this.leaseThenDelete = true;
        return this;
    }

    RawRelay start(int threadCount) {
        for (int i = 0; i < threadCount; i++) {
            Thread t = new Thread(leaseThenDelete ? this::leaseLoop : this::loop, "raw-relay-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return this;
    }

    private void loop() {
        String sql = "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
                + " WHERE status = 'pending' AND available_at <= now() ORDER BY available_at, seq LIMIT ?"
                + " FOR UPDATE SKIP LOCKED) RETURNING id, aggregate_id, payload";
        try (Connection c = dataSource.getConnection()) {
            try (Statement s = c.createStatement()) {
                s.execute("LISTEN \"" + channel + "\"");
            }
            c.setAutoCommit(false);
            PGConnection pg = c.unwrap(PGConnection.class);
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                while (running) {
                    List<Sink.Event> batch = new ArrayList<>(batchSize);
                    ps.setInt(1, batchSize);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            batch.add(new Sink.Event(rs.getObject(1, UUID.class), rs.getString(2), rs.getBytes(3)));
                        }
                    }
                    if (!batch.isEmpty()) {
                        sink.send(batch);
                        for (Sink.Event e : batch) {
                            recorder.confirm(e.id());
                        }
                    }
                    c.commit();
                    recorder.confirmedCount(batch.size());
                    if (batch.size() < batchSize && running) {
                        pg.getNotifications(100);
                        c.commit();
                    }
                }
            }
        } catch (Exception e) {
            if (running) {
                failure.compareAndSet(null, e);
            }
        }
    }

    private void leaseLoop() {
        String owner = Thread.currentThread().getName() + "-" + System.nanoTime();
        String claim =
                "UPDATE " + table + " AS t SET lease_owner = ?, lease_expires_at = now() + interval '30 seconds',"
                        + " attempts = t.attempts + 1 FROM (SELECT id FROM " + table + " WHERE status = 'pending'"
                        + " AND available_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at <= now())"
                        + " ORDER BY available_at, seq LIMIT ? FOR UPDATE SKIP LOCKED) AS due WHERE t.id = due.id"
                        + " RETURNING t.id, t.aggregate_id, t.payload";
        String delete = "DELETE FROM " + table + " WHERE id = ANY(?) AND lease_owner = ?";
        try (Connection c = dataSource.getConnection();
                PreparedStatement claimPs = c.prepareStatement(claim);
                PreparedStatement deletePs = c.prepareStatement(delete)) {
            c.setAutoCommit(true);
            while (running) {
                List<Sink.Event> batch = new ArrayList<>(batchSize);
                claimPs.setString(1, owner);
                claimPs.setInt(2, batchSize);
                try (ResultSet rs = claimPs.executeQuery()) {
                    while (rs.next()) {
                        batch.add(new Sink.Event(rs.getObject(1, UUID.class), rs.getString(2), rs.getBytes(3)));
                    }
                }
                if (batch.isEmpty()) {
                    Thread.sleep(20);
                    continue;
                }
                sink.send(batch);
                UUID[] ids = new UUID[batch.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = batch.get(i).id();
                }
                deletePs.setArray(1, c.createArrayOf("uuid", ids));
                deletePs.setString(2, owner);
                deletePs.executeUpdate();
                recorder.confirmedCount(batch.size());
            }
        } catch (Exception e) {
            if (running) {
                failure.compareAndSet(null, e);
            }
        }
    }

    /** @throws IllegalStateException if a thread failed */
    void check() {
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("the raw relay failed: " + t, t);
        }
    }

    @Override
    public void close() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        check();
    }
}
