package io.txoutbox.it;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.harness.TestEnv;
import io.txoutbox.test.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * The databases the suite runs against: the local PostgreSQL and MariaDB servers, and H2 in a file
 * (shared with child processes through H2's automatic server mode). One pool each, opened on first
 * use and closed when the test JVM exits. URLs can be overridden by environment variables.
 */
enum TestDatabase {
    POSTGRES(LocalPostgres.URL, LocalPostgres.USER, "now()"),
    MARIADB(
            TestEnv.get("TXOUTBOX_MARIADB_URL", "jdbc:mariadb://localhost:3306/test"),
            TestEnv.get("TXOUTBOX_MARIADB_USER", "root"),
            "UTC_TIMESTAMP(6)"),
    H2("jdbc:h2:file:./target/h2/txoutbox;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000", "sa", "CURRENT_TIMESTAMP");

    private final String url;
    private final String user;
    private final String now;
    private HikariDataSource pool;

    TestDatabase(String url, String user, String now) {
        this.url = url;
        this.user = user;
        this.now = now;
    }

    synchronized HikariDataSource dataSource() {
        if (pool == null) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername(user);
            config.setPoolName(name().toLowerCase());
            config.setMaximumPoolSize(12);
            config.setMinimumIdle(0);
            config.setConnectionTimeout(10_000);
            pool = new HikariDataSource(config);
            HikariDataSource opened = pool;
            Runtime.getRuntime().addShutdownHook(new Thread(opened::close));
        }
        return pool;
    }

    /** @return SQL for the database clock */
    String now() {
        return now;
    }

    /** @return the column definition of an auto-numbered primary key */
    String autoKey(String column) {
        return switch (this) {
            case POSTGRES -> column + " bigserial PRIMARY KEY";
            case MARIADB -> column + " BIGINT AUTO_INCREMENT PRIMARY KEY";
            case H2 -> column + " BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY";
        };
    }

    String dropTable(String table) {
        return this == MARIADB ? "DROP TABLE IF EXISTS " + table : "DROP TABLE IF EXISTS " + table + " CASCADE";
    }

    /** @return how a query's arguments are bound here: MariaDB keeps ids as text */
    Sql.Binder binder() {
        return this == MARIADB ? Sql.Binder.UUIDS_AS_TEXT : Sql.Binder.OBJECTS;
    }

    void bindId(PreparedStatement ps, int index, UUID id) throws SQLException {
        binder().bind(ps, index, id);
    }

    Instant readTime(ResultSet rs, int index) throws SQLException {
        if (this == MARIADB) {
            LocalDateTime t = rs.getObject(index, LocalDateTime.class);
            return t == null ? null : t.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
