package io.txoutbox.jdbc;

import java.util.Map;
import java.util.Set;

/**
 * H2 2.2 or later, for embedded use and fast tests: claims and marks with short transactions ({@link
 * ShortTransactionDialect}). Its catalogue keeps unquoted names in upper case. Only what differs from
 * {@link PostgresDialect} is here.
 */
final class H2Dialect extends ShortTransactionDialect {
    static final H2Dialect INSTANCE = new H2Dialect();

    private H2Dialect() {}

    @Override
    public String name() {
        return "h2";
    }

    /** A duplicate is a primary-key violation (SQLState 23505). */
    @Override
    public boolean inboxInsertIgnoresDuplicates() {
        return false;
    }

    @Override
    public String columns() {
        return "SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns"
                + " WHERE table_schema = COALESCE(UPPER(?), CURRENT_SCHEMA) AND table_name = UPPER(?)";
    }

    @Override
    public Map<ColumnKind, Set<String>> types() {
        return Map.of(
                ColumnKind.UUID, Set.of("uuid"),
                ColumnKind.TEXT, Set.of("character varying", "character large object"),
                ColumnKind.BYTES, Set.of("binary large object", "binary varying"),
                ColumnKind.TIME, Set.of("timestamp with time zone"),
                ColumnKind.INTEGER, Set.of("integer", "bigint"),
                ColumnKind.JSON, Set.of("character large object", "character varying", "json"));
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    public String leaseExpiry() {
        return "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)";
    }

    @Override
    public String inboxInsert() {
        return "INSERT INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?)";
    }
}
