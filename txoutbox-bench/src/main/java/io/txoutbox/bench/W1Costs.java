package io.txoutbox.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What one W1 cell cost per transaction, measured beside its rate because a shared machine's noise moves
 * the rate far more than the cost: this JVM's CPU (every thread: appenders, the notifier, GC, JIT) and
 * the CPU of the cell's database backends (the pool's, the after-commit notifier's included), read from
 * {@code /proc} as the server runs on this machine.
 */
final class W1Costs {
    private static final double TICK_MICROS = 1e6 / 100;

    private final DataSource admin;
    private final List<String> names;
    private final long clientStart;
    private final Map<Integer, Long> serverStart;

    private W1Costs(DataSource admin, List<String> names) {
        this.admin = admin;
        this.names = names;
        this.serverStart = serverTicks();
        this.clientStart = processCpuNanos();
    }

    /** Starts measuring the backends whose {@code application_name} is one of {@code names}. */
    static W1Costs start(DataSource admin, List<String> names) {
        return new W1Costs(admin, names);
    }

    /** @return client and server CPU in microseconds per transaction, over {@code transactions} */
    double[] perTransaction(long transactions) {
        double client = (processCpuNanos() - clientStart) / 1e3 / transactions;
        long ticks = 0;
        for (Map.Entry<Integer, Long> e : serverTicks().entrySet()) {
            ticks += e.getValue() - serverStart.getOrDefault(e.getKey(), 0L);
        }
        return new double[] {client, ticks * TICK_MICROS / transactions};
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private Map<Integer, Long> serverTicks() {
        Map<Integer, Long> ticks = new HashMap<>();
        try (Connection c = admin.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("text", names.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int pid = rs.getInt(1);
                    long t = ticks(pid);
                    if (t >= 0) {
                        ticks.put(pid, t);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("W1 could not list its backends: " + e.getMessage(), e);
        }
        return ticks;
    }

    /** @return utime + stime of a process in clock ticks, or -1 when it is gone */
    private static long ticks(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
