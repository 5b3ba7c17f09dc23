package io.txoutbox.jdbc;

import java.util.Map;
import java.util.Set;

/**
 * MariaDB 10.6 or later, and MySQL 8.0.13 or later: claims and marks with short transactions ({@link
 * ShortTransactionDialect}). Times are UTC {@code DATETIME(6)}, ids {@code CHAR(36)}, so that MariaDB and
 * MySQL read them the same way. Only what differs from {@link PostgresDialect} is here.
 */
final class MariaDbDialect extends ShortTransactionDialect {
    static final MariaDbDialect INSTANCE = new MariaDbDialect();

    private MariaDbDialect() {}

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public boolean storesUuidAsText() {
        return true;
    }

    @Override
    public boolean storesUtcLocalTimes() {
        return true;
    }

    @Override
    public String columns() {
        return "SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns"
                + " WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?";
    }

    @Override
    public Map<ColumnKind, Set<String>> types() {
        return Map.of(
                ColumnKind.UUID, Set.of("char", "uuid", "varchar"),
                ColumnKind.TEXT, Set.of("varchar", "text", "mediumtext", "longtext"),
                ColumnKind.BYTES, Set.of("longblob", "mediumblob", "blob"),
                ColumnKind.TIME, Set.of("datetime", "timestamp"),
                ColumnKind.INTEGER, Set.of("int", "bigint"),
                ColumnKind.JSON, Set.of("longtext", "mediumtext", "text", "json"));
    }

    @Override
    public String notNullFix(String table, String column) {
        return "ALTER TABLE " + table + " MODIFY " + column + " <its type> NOT NULL";
    }

    /** MariaDB and MySQL cast to {@code SIGNED}, not to a column type. */
    @Override
    String bigint() {
        return "SIGNED";
    }

    @Override
    public String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    public String leaseExpiry() {
        return "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL ? * 1000 MICROSECOND)";
    }

    @Override
    public String purge() {
        return "DELETE FROM {table} WHERE status = 'published' AND published_at < ? ORDER BY published_at LIMIT ?";
    }

    @Override
    public String inboxInsert() {
        return "INSERT IGNORE INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?)";
    }
}
