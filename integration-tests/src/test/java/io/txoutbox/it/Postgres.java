package io.txoutbox.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** The local PostgreSQL the suite runs against; override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER. */
final class Postgres {
    static final String URL = env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test");
    static final String USER = env("TXOUTBOX_PG_USER", "postgres");

    private Postgres() {}

    static HikariDataSource pool(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setUsername(USER);
        config.setPoolName(name);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
