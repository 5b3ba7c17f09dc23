package io.txoutbox.kafka;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** The local PostgreSQL of the outage test; override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER. */
final class Postgres {
    private Postgres() {}

    static HikariDataSource pool(String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test"));
        config.setUsername(env("TXOUTBOX_PG_USER", "postgres"));
        config.setPoolName(name);
        config.setMaximumPoolSize(6);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
