package io.txoutbox.harness;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The local PostgreSQL that tests use, {@code jdbc:postgresql://localhost:5432/test} as {@code postgres}
 * unless {@code TXOUTBOX_PG_URL} and {@code TXOUTBOX_PG_USER} say otherwise, through a real pool or a
 * connection of its own per call. Needs the PostgreSQL driver on the test class path, and {@code
 * com.zaxxer:HikariCP} for the pool.
 */
public final class LocalPostgres {
    /** The JDBC URL: {@code TXOUTBOX_PG_URL}, or the local server's database {@code test}. */
    public static final String URL = TestEnv.get("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test");

    /** The user: {@code TXOUTBOX_PG_USER}, or {@code postgres}. */
    public static final String USER = TestEnv.get("TXOUTBOX_PG_USER", "postgres");

    private LocalPostgres() {}

    /**
     * @return a data source that opens a connection of its own for each {@code getConnection()} and keeps
     *     none: for tests that look at the database now and then, with nothing to close
     */
    public static DataSource unpooled() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(URL);
        dataSource.setUser(USER);
        return dataSource;
    }

    /**
     * @param poolName the pool's name, shown in its threads and logs
     * @return a pool of at most 4 connections that keeps none idle; the caller closes it
     */
    public static HikariDataSource pool(String poolName) {
        return pool(poolName, 4);
    }

    /**
     * @param poolName the pool's name, shown in its threads and logs
     * @param maximumPoolSize the most connections it opens
     * @return a pool that keeps no connection idle; the caller closes it
     */
    public static HikariDataSource pool(String poolName, int maximumPoolSize) {
        return new HikariDataSource(config(poolName, maximumPoolSize));
    }

    /**
     * @param poolName the pool's name, shown in its threads and logs
     * @param maximumPoolSize the most connections it opens
     * @return the settings of {@link #pool(String, int)}, for a test that changes more of them
     */
    public static HikariConfig config(String poolName, int maximumPoolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setUsername(USER);
        config.setPoolName(poolName);
        config.setMaximumPoolSize(maximumPoolSize);
        config.setMinimumIdle(0);
        return config;
    }
}
