package io.txoutbox.kafka;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.test.LocalPostgres;

/** The local PostgreSQL of the outage test; override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER. */
final class Postgres {
    private Postgres() {}

    static HikariDataSource pool(String name) {
        HikariConfig config = LocalPostgres.config(name, 6);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }
}
