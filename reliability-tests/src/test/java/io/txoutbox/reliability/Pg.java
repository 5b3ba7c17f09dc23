package io.txoutbox.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.test.Sql;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The local PostgreSQL server (override with {@code TXOUTBOX_PG_URL} and {@code TXOUTBOX_PG_USER}):
 * pools with an application name, so that the test can find and terminate exactly the backends of
 * one role (relay, producer) with {@code pg_terminate_backend}.
 */
final class Pg {
    private Pg() {}

    /**
     * @param applicationName shown in {@code pg_stat_activity}: how the test finds these backends
     * @param size the pool's maximum size
     * @return a pool; the caller closes it
     */
    static HikariDataSource pool(String applicationName, int size) {
        HikariConfig config = LocalPostgres.config(applicationName, size);
        config.setConnectionTimeout(5_000);
        config.addDataSourceProperty("ApplicationName", applicationName);
        return new HikariDataSource(config);
    }

    /** @return a fresh lower-case table name with the given prefix */
    static String uniqueName(String prefix) {
        return prefix + "_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    }

    /**
     * Terminates every backend whose application name matches, except the caller's own.
     *
     * @param pattern a {@code LIKE} pattern on {@code application_name}
     * @return how many backends were terminated
     */
    static int terminate(javax.sql.DataSource ds, String pattern) {
        return (int) Sql.count(
                ds,
                "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity"
                        + " WHERE application_name LIKE ? AND pid <> pg_backend_pid()) t WHERE done",
                pattern);
    }

    /** Drops an outbox table and its notify function. */
    static void dropOutbox(javax.sql.DataSource ds, String table) {
        Sql.execute(ds, "DROP TABLE IF EXISTS " + table + " CASCADE");
        Sql.execute(ds, "DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
    }
}
