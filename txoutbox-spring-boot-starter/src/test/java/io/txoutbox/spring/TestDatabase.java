package io.txoutbox.spring;

import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.test.Sql;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/** The local PostgreSQL the tests use; override with TXOUTBOX_PG_URL / TXOUTBOX_PG_USER. */
public final class TestDatabase {
    public static final String URL = LocalPostgres.URL;
    public static final String USER = LocalPostgres.USER;
    /** A connection of its own for each call, as the tests' checks need no pool. */
    private static final DataSource POSTGRES = LocalPostgres.unpooled();

    private TestDatabase() {}

    /** @return the Spring properties that point a context at the test database */
    public static String[] dataSourceProperties() {
        return new String[] {
            "spring.datasource.url=" + URL,
            "spring.datasource.username=" + USER,
            "spring.datasource.hikari.maximum-pool-size=4",
            "spring.datasource.hikari.minimum-idle=0"
        };
    }

    /** @return a table name unique to this run, with the given prefix */
    public static String uniqueTable(String prefix) {
        return (prefix + "_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF)))
                .toLowerCase(Locale.ROOT);
    }

    /** Drops an outbox table and its notify function. */
    public static void dropOutbox(String table) {
        execute("DROP TABLE IF EXISTS " + table + " CASCADE");
        execute("DROP TABLE IF EXISTS " + table + "_published CASCADE");
        execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
    }

    public static void execute(String sql) {
        Sql.execute(POSTGRES, sql);
    }

    public static long count(String sql) {
        return Sql.count(POSTGRES, sql);
    }
}
