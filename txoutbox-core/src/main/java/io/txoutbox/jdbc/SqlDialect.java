package io.txoutbox.jdbc;

import io.txoutbox.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * The SQL of one database: data (statement templates and type names) plus a few flags. PostgreSQL is
 * the reference; {@link #MARIADB} and {@link #H2} are derived from it and replace only what differs.
 *
 * <p>Templates name the table and the mappable columns with tokens that the store replaces once, with
 * validated identifiers, when it is built: {@code {table}}, {@code {name}}, {@code {channel}}, {@code
 * {id}}, {@code {aggregate_type}}, {@code {aggregate_id}}, {@code {event_type}}, {@code {payload}};
 * {@code {now}} is the database clock, {@code {head}} the ordered-mode filter (empty when unordered) and
 * {@code {ids}} a list of placeholders.
 *
 * @param name the dialect's name, as logged and configured
 * @param outboxDdl creates the outbox table and its indexes (and on PostgreSQL drops the trigger of
 *     txoutbox 0.1 that notified from every appending transaction)
 * @param inboxDdl creates the inbox table
 * @param now the database clock, for leases
 * @param leaseExpiry the database clock plus a bound number of milliseconds
 * @param insert appends one event (13 parameters, see the store)
 * @param claim claims a batch within a byte budget in one statement returning the rows (parameters: now,
 *     limit, byte budget, owner, lease); {@code null} where the database has no {@code UPDATE …
 *     RETURNING}, and {@link #claimSelect} with {@link #claimUpdate} run in one short transaction instead
 * @param claimSelect selects and locks due rows, skipping locked ones: each row's id and payload size, so
 *     the store picks the rows within the byte budget before it reads any payload
 * @param claimUpdate leases the picked rows, which the store then reads
 * @param completeDelete marks a batch in one statement, deleting published rows; {@code null} to mark
 *     with a short transaction of simple statements
 * @param completeRetain marks a batch in one statement, keeping published rows; {@code null} likewise
 * @param purge deletes at most a bound number of published rows older than a bound time
 * @param notifySql wakes listening relays, binds the channel; {@code null} where the database cannot
 *     (sent after commit, on a connection of its own, never from an appending transaction)
 * @param supportsListen whether relays can listen for wake-ups from other writers
 * @param inboxInsert records a processed event id (consumer, id, time)
 * @param inboxInsertIgnoresDuplicates whether {@link #inboxInsert} reports a duplicate as 0 rows; if not,
 *     a duplicate-key error means the id was seen
 * @param columnsQuery lists the table's columns, their type names and whether they allow NULL ({@code
 *     YES}/{@code NO}) (schema or null, table)
 * @param upperCaseIdentifiers whether the catalogue stores unquoted identifiers in upper case
 * @param types the type names each kind of column may have in the catalogue
 * @param timestamps how times are bound and read
 * @param uuidAsText whether ids are stored as text rather than a native uuid type
 */
record SqlDialect(
        String name,
        String outboxDdl,
        String inboxDdl,
        String now,
        String leaseExpiry,
        String insert,
        String claim,
        String claimSelect,
        String claimUpdate,
        String completeDelete,
        String completeRetain,
        String purge,
        String notifySql,
        boolean supportsListen,
        String inboxInsert,
        boolean inboxInsertIgnoresDuplicates,
        String columnsQuery,
        boolean upperCaseIdentifiers,
        Map<ColumnKind, Set<String>> types,
        TimeCodec timestamps,
        boolean uuidAsText) {

    /** The kinds of column the schema check knows. */
    public enum ColumnKind {
        /** The event id. */
        UUID,
        /** Short text. */
        TEXT,
        /** The payload. */
        BYTES,
        /** A point in time. */
        TIME,
        /** A whole number. */
        INTEGER,
        /** The headers (a JSON object). */
        JSON
    }

    /** How times are stored. */
    public enum TimeCodec {
        /** {@code timestamp with time zone}, bound as {@code OffsetDateTime}. */
        OFFSET,
        /** A zone-less timestamp holding UTC, bound as {@code LocalDateTime}. */
        UTC_LOCAL
    }

    /** What a claim reads of a row, in this order; the store reads them by position. */
    static final String COLUMNS = "o.{id}, o.{aggregate_type}, o.{aggregate_id}, o.{event_type},"
            + " o.event_version, o.{payload}, o.content_type, o.headers, o.tenant_id, o.destination,"
            + " o.created_at, o.attempts, o.max_attempts";

    private static final String DUE = " FROM {table} o WHERE o.status = 'pending' AND o.available_at <= ?"
            + " AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= {now}){head}"
            + " ORDER BY o.available_at, o.seq LIMIT ? FOR UPDATE SKIP LOCKED";

    private static final String INSERT_COLUMNS = "INSERT INTO {table} ({id}, {aggregate_type}, {aggregate_id},"
            + " {event_type}, event_version, {payload}, content_type, headers, tenant_id, destination, created_at,"
            + " available_at, max_attempts) VALUES ";

    private static final String PG_INPUT = "WITH input AS (SELECT * FROM unnest(?::uuid[], ?::varchar[],"
            + " ?::text[], ?::text[]) AS i(id, status, available_at, error))";

    private static final String PG_UPDATE_MARKED = " UPDATE {table} AS t SET status = i.status,"
            + " available_at = CASE WHEN i.status = 'pending' THEN i.available_at::timestamptz"
            + " ELSE t.available_at END,"
            + " last_error = CASE WHEN i.status = 'published' THEN t.last_error ELSE i.error END,"
            + " lease_owner = NULL, lease_expires_at = NULL";

    /** PostgreSQL 14 or later: the reference dialect. */
    static final SqlDialect POSTGRESQL = new SqlDialect(
            "postgresql",
            resource("postgresql-outbox.sql") + "\n" + resource("postgresql-drop-commit-notify.sql"),
            resource("postgresql-inbox.sql"),
            "now()",
            "now() + ? * interval '1 millisecond'",
            INSERT_COLUMNS + "(?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?)",
            // octet_length reads the size from the TOAST header without detoasting: payloads beyond the
            // byte budget are never read, only the picked rows are updated and returned.
            "WITH due AS (SELECT o.{id}, o.available_at, o.seq, COALESCE(octet_length(o.{payload}), 0) AS bytes"
                    + DUE + "), picked AS (SELECT d.{id} FROM (SELECT due.{id}, sum(due.bytes) OVER (ORDER BY"
                    + " due.available_at, due.seq ROWS UNBOUNDED PRECEDING) - due.bytes AS before FROM due) d"
                    + " WHERE d.before < ?)"
                    + " UPDATE {table} AS t SET lease_owner = ?,"
                    + " lease_expires_at = now() + ? * interval '1 millisecond', attempts = t.attempts + 1"
                    + " FROM picked WHERE t.{id} = picked.{id}"
                    + " RETURNING t.{id}, t.{aggregate_type}, t.{aggregate_id}, t.{event_type}, t.event_version,"
                    + " t.{payload}, t.content_type, t.headers::text, t.tenant_id, t.destination, t.created_at,"
                    + " t.attempts, t.max_attempts",
            "SELECT o.{id}, COALESCE(OCTET_LENGTH(o.{payload}), 0)" + DUE,
            "UPDATE {table} SET lease_owner = ?, lease_expires_at = {lease_expiry}, attempts = attempts + 1"
                    + " WHERE {id} IN ({ids})",
            PG_INPUT
                    + ", deleted AS (DELETE FROM {table} AS t USING input AS i WHERE t.{id} = i.id"
                    + " AND i.status = 'published' AND t.lease_owner = ? RETURNING t.{id})"
                    + ", updated AS (" + PG_UPDATE_MARKED + " FROM input AS i WHERE t.{id} = i.id"
                    + " AND i.status <> 'published' AND t.lease_owner = ? RETURNING t.{id})"
                    + " SELECT {id} FROM deleted UNION ALL SELECT {id} FROM updated",
            PG_INPUT
                    + ", updated AS (" + PG_UPDATE_MARKED
                    + ", published_at = CASE WHEN i.status = 'published' THEN ?::timestamptz"
                    + " ELSE t.published_at END"
                    + " FROM input AS i WHERE t.{id} = i.id AND t.lease_owner = ? RETURNING t.{id})"
                    + " SELECT {id} FROM updated",
            "DELETE FROM {table} WHERE {id} IN (SELECT {id} FROM {table}"
                    + " WHERE status = 'published' AND published_at < ? LIMIT ?)",
            "SELECT pg_notify(?, '')",
            true,
            "INSERT INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            true,
            "SELECT column_name, udt_name, is_nullable FROM information_schema.columns"
                    + " WHERE table_schema = COALESCE(?, current_schema()) AND table_name = ?",
            false,
            Map.of(
                    ColumnKind.UUID, Set.of("uuid"),
                    ColumnKind.TEXT, Set.of("varchar", "text"),
                    ColumnKind.BYTES, Set.of("bytea"),
                    ColumnKind.TIME, Set.of("timestamptz"),
                    ColumnKind.INTEGER, Set.of("int4", "int8"),
                    ColumnKind.JSON, Set.of("jsonb")),
            TimeCodec.OFFSET,
            false);

    /** MariaDB 10.6 or later, and MySQL 8.0.13 or later: {@code SKIP LOCKED}, no {@code NOTIFY}. */
    static final SqlDialect MARIADB = new SqlDialect(
            "mariadb",
            resource("mariadb-outbox.sql"),
            resource("mariadb-inbox.sql"),
            "UTC_TIMESTAMP(6)",
            "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL ? * 1000 MICROSECOND)",
            INSERT_COLUMNS + "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            null,
            POSTGRESQL.claimSelect,
            POSTGRESQL.claimUpdate,
            null,
            null,
            "DELETE FROM {table} WHERE status = 'published' AND published_at < ? ORDER BY published_at LIMIT ?",
            null,
            false,
            "INSERT IGNORE INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?)",
            true,
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns"
                    + " WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?",
            false,
            Map.of(
                    ColumnKind.UUID, Set.of("char", "uuid", "varchar"),
                    ColumnKind.TEXT, Set.of("varchar", "text", "mediumtext", "longtext"),
                    ColumnKind.BYTES, Set.of("longblob", "mediumblob", "blob"),
                    ColumnKind.TIME, Set.of("datetime", "timestamp"),
                    ColumnKind.INTEGER, Set.of("int", "bigint"),
                    ColumnKind.JSON, Set.of("longtext", "mediumtext", "text", "json")),
            TimeCodec.UTC_LOCAL,
            true);

    /** H2 2.2 or later, for embedded use and fast tests: {@code SKIP LOCKED}, no {@code NOTIFY}. */
    static final SqlDialect H2 = new SqlDialect(
            "h2",
            resource("h2-outbox.sql"),
            resource("h2-inbox.sql"),
            "CURRENT_TIMESTAMP",
            "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)",
            MARIADB.insert,
            null,
            POSTGRESQL.claimSelect,
            POSTGRESQL.claimUpdate,
            null,
            null,
            POSTGRESQL.purge,
            null,
            false,
            "INSERT INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?)",
            false,
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns"
                    + " WHERE table_schema = COALESCE(UPPER(?), CURRENT_SCHEMA) AND table_name = UPPER(?)",
            true,
            Map.of(
                    ColumnKind.UUID, Set.of("uuid"),
                    ColumnKind.TEXT, Set.of("character varying", "character large object"),
                    ColumnKind.BYTES, Set.of("binary large object", "binary varying"),
                    ColumnKind.TIME, Set.of("timestamp with time zone"),
                    ColumnKind.INTEGER, Set.of("integer", "bigint"),
                    ColumnKind.JSON, Set.of("character large object", "character varying", "json")),
            TimeCodec.OFFSET,
            false);

    /** Copies the type map. */
    SqlDialect {
        types = Map.copyOf(types);
    }

    /** @return the SQL of the database a public {@link Dialect} names */
    static SqlDialect of(Dialect dialect) {
        if (dialect == Dialect.POSTGRESQL) {
            return POSTGRESQL;
        }
        if (dialect == Dialect.MARIADB) {
            return MARIADB;
        }
        if (dialect == Dialect.H2) {
            return H2;
        }
        throw new IllegalArgumentException("unknown dialect " + dialect);
    }

    static String resource(String file) {
        try (InputStream in = SqlDialect.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("txoutbox resource io/txoutbox/jdbc/" + file + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "SqlDialect[" + name + "]";
    }
}
