package io.txoutbox.jdbc;

import io.txoutbox.OutboxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL of one database: data (statement templates) plus the flags the store needs. Templates name
 * the mappable columns and the table with tokens ({@code {table}}, {@code {name}}, {@code {id}}, {@code
 * {aggregate_type}}, {@code {aggregate_id}}, {@code {event_type}}, {@code {payload}}, {@code {channel}})
 * that the store replaces once, with validated identifiers, when it is built.
 *
 * @param name the dialect's name, as logged and configured
 * @param outboxDdl the script that creates the outbox table, its indexes and its wake-up trigger
 * @param inboxDdl the script that creates the inbox table
 * @param claim claims a batch: binds now, limit, owner, lease millis
 * @param completeDelete marks a batch, deleting published rows: binds ids, states, times, errors, owner
 *     twice
 * @param completeRetain marks a batch, keeping published rows: binds ids, states, times, errors,
 *     published-at, owner
 * @param release returns an owner's leases: binds owner
 * @param nextDue the earliest due time of unleased pending rows
 * @param stats counts per type and state
 * @param notifySql wakes listening relays: binds the channel; {@code null} where the database cannot
 * @param supportsListen whether relays can listen for wake-ups from other writers
 * @param inboxInsert records a processed id unless it is there: binds consumer, event id, time; one row
 *     updated the first time, none for a duplicate
 */
public record Dialect(
        String name,
        String outboxDdl,
        String inboxDdl,
        String claim,
        String completeDelete,
        String completeRetain,
        String release,
        String nextDue,
        String stats,
        String notifySql,
        boolean supportsListen,
        String inboxInsert) {

    private static final Logger log = LoggerFactory.getLogger(Dialect.class);

    private static final String RETURNING = " RETURNING t.{id}, t.{aggregate_type}, t.{aggregate_id}, t.{event_type},"
            + " t.event_version, t.{payload}, t.content_type, t.headers::text, t.tenant_id, t.destination,"
            + " t.created_at, t.attempts, t.max_attempts";

    private static final String INPUT = "WITH input AS (SELECT * FROM unnest(?::uuid[], ?::varchar[],"
            + " ?::text[], ?::text[]) AS i(id, status, available_at, error))";

    private static final String UPDATE_MARKED = " UPDATE {table} AS t SET status = i.status,"
            + " available_at = CASE WHEN i.status = 'pending' THEN i.available_at::timestamptz"
            + " ELSE t.available_at END,"
            + " last_error = CASE WHEN i.status = 'published' THEN t.last_error ELSE i.error END,"
            + " lease_owner = NULL, lease_expires_at = NULL";

    /** PostgreSQL 14 or later: the reference dialect. */
    public static final Dialect POSTGRESQL = new Dialect(
            "postgresql",
            resource("postgresql-outbox.sql"),
            resource("postgresql-inbox.sql"),
            "WITH due AS (SELECT {id} FROM {table} WHERE status = 'pending' AND available_at <= ?"
                    + " AND (lease_expires_at IS NULL OR lease_expires_at <= now())"
                    + " ORDER BY available_at, {id} LIMIT ? FOR UPDATE SKIP LOCKED)"
                    + " UPDATE {table} AS t SET lease_owner = ?,"
                    + " lease_expires_at = now() + ? * interval '1 millisecond', attempts = t.attempts + 1"
                    + " FROM due WHERE t.{id} = due.{id}" + RETURNING,
            INPUT
                    + ", deleted AS (DELETE FROM {table} AS t USING input AS i WHERE t.{id} = i.id"
                    + " AND i.status = 'published' AND t.lease_owner = ? RETURNING t.{id})"
                    + ", updated AS (" + UPDATE_MARKED + " FROM input AS i WHERE t.{id} = i.id"
                    + " AND i.status <> 'published' AND t.lease_owner = ? RETURNING t.{id})"
                    + " SELECT {id} FROM deleted UNION ALL SELECT {id} FROM updated",
            INPUT
                    + ", updated AS (" + UPDATE_MARKED
                    + ", published_at = CASE WHEN i.status = 'published' THEN ?::timestamptz"
                    + " ELSE t.published_at END"
                    + " FROM input AS i WHERE t.{id} = i.id AND t.lease_owner = ? RETURNING t.{id})"
                    + " SELECT {id} FROM updated",
            "UPDATE {table} SET lease_owner = NULL, lease_expires_at = NULL,"
                    + " attempts = greatest(attempts - 1, 0) WHERE lease_owner = ? AND status = 'pending'",
            "SELECT min(available_at) FROM {table} WHERE status = 'pending'"
                    + " AND (lease_expires_at IS NULL OR lease_expires_at <= now())",
            "SELECT {event_type},"
                    + " sum(CASE WHEN status = 'pending' AND (lease_expires_at IS NULL"
                    + " OR lease_expires_at <= now()) THEN 1 ELSE 0 END),"
                    + " sum(CASE WHEN status = 'pending' AND lease_expires_at > now() THEN 1 ELSE 0 END),"
                    + " sum(CASE WHEN status = 'pending' AND attempts > 0 AND (lease_expires_at IS NULL"
                    + " OR lease_expires_at <= now()) THEN 1 ELSE 0 END),"
                    + " sum(CASE WHEN status = 'dead' THEN 1 ELSE 0 END),"
                    + " sum(CASE WHEN status = 'published' THEN 1 ELSE 0 END),"
                    + " min(CASE WHEN status = 'pending' THEN created_at END)"
                    + " FROM {table} GROUP BY {event_type}",
            "SELECT pg_notify(?, '')",
            true,
            "INSERT INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");

    private static final List<Dialect> SUPPORTED = List.of(POSTGRESQL);

    /**
     * Picks the dialect of the database behind a data source, and logs what it picked.
     *
     * @param dataSource the application's data source
     * @return the dialect
     * @throws OutboxException naming the database and the supported ones when it is not supported
     */
    public static Dialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData meta = connection.getMetaData();
            String product = meta.getDatabaseProductName();
            String version = meta.getDatabaseProductVersion();
            Dialect dialect = forProduct(product, meta.getDatabaseMajorVersion());
            log.info("txoutbox: detected {} {}; using the {} dialect", product, version, dialect.name());
            return dialect;
        } catch (SQLException e) {
            throw SqlExceptions.translate("dialect detection", "-", e);
        }
    }

    static Dialect forProduct(String product, int majorVersion) {
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            if (majorVersion < 14) {
                throw new OutboxException(
                        "txoutbox needs PostgreSQL 14 or later; the database is " + product + " " + majorVersion);
            }
            return POSTGRESQL;
        }
        throw new OutboxException("txoutbox does not support the database '" + product + "'; supported: "
                + SUPPORTED.stream().map(Dialect::name).toList() + " (PostgreSQL 14 or later)");
    }

    /**
     * @param name a dialect name, for example {@code postgresql}
     * @return the dialect
     * @throws OutboxException naming the supported dialects when the name is unknown
     */
    public static Dialect named(String name) {
        for (Dialect d : SUPPORTED) {
            if (d.name.equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new OutboxException("txoutbox.dialect '" + name + "' is unknown; supported: "
                + SUPPORTED.stream().map(Dialect::name).toList());
    }

    private static String resource(String file) {
        try (InputStream in = Dialect.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("txoutbox resource io/txoutbox/jdbc/" + file + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
