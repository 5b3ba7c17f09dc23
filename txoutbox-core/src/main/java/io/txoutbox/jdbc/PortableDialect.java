package io.txoutbox.jdbc;

import io.txoutbox.DeadHeadPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The statements every dialect shares, in portable SQL: the operations of the admin API (stats, the
 * dead listing, revive, delete, purge), the head filter of ordered mode and the inbox's, with the
 * helpers of the dialects. {@link PostgresDialect} adds PostgreSQL's own; the other dialects extend it
 * and override only what their database does differently.
 */
abstract class PortableDialect implements SqlDialect {

    // ---- operations --------------------------------------------------------------------------------

    @Override
    public String stats() {
        return "SELECT {event_type} AS event_type,"
                + " sum(CASE WHEN status = 'pending' AND (lease_expires_at IS NULL"
                + " OR lease_expires_at <= {now}) THEN 1 ELSE 0 END) AS pending,"
                + " sum(CASE WHEN status = 'pending' AND lease_expires_at > {now} THEN 1 ELSE 0 END) AS in_flight,"
                + " sum(CASE WHEN status = 'pending' AND attempts > 0 AND (lease_expires_at IS NULL"
                + " OR lease_expires_at <= {now}) THEN 1 ELSE 0 END) AS retrying,"
                + " sum(CASE WHEN status = 'dead' THEN 1 ELSE 0 END) AS dead,"
                + " sum(CASE WHEN status = 'published' THEN 1 ELSE 0 END) AS published,"
                + " min(CASE WHEN status = 'pending' THEN created_at END) AS oldest"
                + " FROM {table} GROUP BY {event_type}";
    }

    @Override
    public String blockedAggregates() {
        return "SELECT count(*) AS n FROM (SELECT DISTINCT d.{aggregate_type}, d.{aggregate_id}"
                + " FROM {table} d WHERE d.status = 'dead' AND EXISTS (SELECT 1 FROM {table} p"
                + " WHERE p.{aggregate_type} = d.{aggregate_type} AND p.{aggregate_id} = d.{aggregate_id}"
                + " AND p.status = 'pending' AND p.seq > d.seq)) blocked";
    }

    @Override
    public String blockedEvents() {
        return "SELECT count(*) AS n FROM {table} p WHERE p.status = 'pending' AND EXISTS"
                + " (SELECT 1 FROM {table} d WHERE d.{aggregate_type} = p.{aggregate_type}"
                + " AND d.{aggregate_id} = p.{aggregate_id} AND d.status = 'dead' AND d.seq < p.seq)";
    }

    @Override
    public String listDead(DeadHeadPolicy policy, boolean ofType, boolean after) {
        String heldBack = policy == DeadHeadPolicy.BLOCK
                ? "(SELECT count(*) FROM {table} p WHERE p.{aggregate_type} = d.{aggregate_type}"
                        + " AND p.{aggregate_id} = d.{aggregate_id} AND p.status = 'pending' AND p.seq > d.seq)"
                : "0";
        return "SELECT d.{id} AS id, d.{aggregate_type} AS aggregate_type, d.{aggregate_id} AS aggregate_id,"
                + " d.{event_type} AS event_type, d.event_version AS event_version, d.tenant_id AS tenant_id,"
                + " d.attempts AS attempts, d.last_error AS last_error, d.created_at AS created_at, " + heldBack
                + " AS held_back FROM {table} d WHERE d.status = 'dead'"
                + (ofType ? " AND d.{event_type} = ?" : "")
                + (after ? " AND d.{id} > ?" : "")
                + " ORDER BY d.{id} LIMIT ?";
    }

    @Override
    public String selectIds() {
        return " AND {id} IN ({ids})";
    }

    @Override
    public String selectType() {
        return " AND {event_type} = ?";
    }

    @Override
    public String revive() {
        return "UPDATE {table} SET status = 'pending', attempts = 0, available_at = ?,"
                + " lease_owner = NULL, lease_expires_at = NULL WHERE status = 'dead'";
    }

    @Override
    public String deleteDead() {
        return "DELETE FROM {table} WHERE status = 'dead'";
    }

    @Override
    public String purge() {
        return "DELETE FROM {table} WHERE {id} IN (SELECT {id} FROM {table}"
                + " WHERE status = 'published' AND published_at < ? LIMIT ?)";
    }

    @Override
    public String headFilter(DeadHeadPolicy policy) {
        if (policy == null) {
            return "";
        }
        return " AND NOT EXISTS (SELECT 1 FROM {table} p WHERE p.{aggregate_type} = o.{aggregate_type}"
                + " AND p.{aggregate_id} = o.{aggregate_id} AND p.seq < o.seq AND p.status IN ("
                + (policy == DeadHeadPolicy.BLOCK ? "'pending', 'dead'" : "'pending'") + "))";
    }

    // ---- inbox -------------------------------------------------------------------------------------

    @Override
    public String inboxInsert() {
        return "INSERT INTO {table} (consumer, event_id, processed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING";
    }

    @Override
    public String inboxPurge() {
        return "DELETE FROM {table} WHERE consumer = ? AND processed_at < ?";
    }

    // ---- schema ------------------------------------------------------------------------------------

    /** The script {@code <name>-outbox.sql} beside this class: the same table as the dialect's migration V1. */
    @Override
    public String outboxDdl() {
        return resource(name() + "-outbox.sql");
    }

    /** The script {@code <name>-inbox.sql} beside this class: the same table as the dialect's migration V2. */
    @Override
    public String inboxDdl() {
        return resource(name() + "-inbox.sql");
    }

    // ---- helpers -----------------------------------------------------------------------------------

    /** Refuses a statement of a path the database does not take, naming what it lacks. */
    final void require(boolean capable, String lack) {
        if (!capable) {
            throw new UnsupportedOperationException("txoutbox: the " + name() + " dialect " + lack);
        }
    }

    /** @return a DDL script shipped beside this class */
    static String resource(String file) {
        try (InputStream in = PostgresDialect.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("txoutbox resource io/txoutbox/jdbc/" + file + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
