package io.txoutbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Samples {@code pg_stat_activity} every 2 ms while a W1 cell runs: the wait events of the active
 * backends of one application name. A transaction that notifies takes PostgreSQL's database-wide
 * notification lock at commit ({@code LockSharedObject} on the database: wait event {@code Lock:object});
 * counting the samples that wait on it shows whether appending commits queue behind each other.
 */
final class WaitSampler implements AutoCloseable {
    /** What one cell's samples add up to. */
    record Counts(long active, long notifyLock, String top) {}

    private final DataSource dataSource;
    private final String applicationName;
    private final Map<String, LongAdder> byEvent = new ConcurrentHashMap<>();
    private final LongAdder active = new LongAdder();
    private volatile boolean running = true;
    private Thread thread;

    WaitSampler(DataSource dataSource, String applicationName) {
        this.dataSource = dataSource;
        this.applicationName = applicationName;
    }

    WaitSampler start() {
        thread = new Thread(this::run, "w1-wait-sampler");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void run() {
        String sql = "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity"
                + " WHERE application_name = ? AND state = 'active'";
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, applicationName);
            while (running) {
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        active.increment();
                        byEvent.computeIfAbsent(rs.getString(1), k -> new LongAdder())
                                .increment();
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("sampling pg_stat_activity failed: " + e.getMessage(), e);
        }
    }

    Counts counts() {
        Map<String, Long> sorted = new TreeMap<>();
        byEvent.forEach((k, v) -> sorted.put(k, v.sum()));
        String top = sorted.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(4)
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
        return new Counts(active.sum(), sorted.getOrDefault("Lock:object", 0L), top.isEmpty() ? "none" : top);
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
