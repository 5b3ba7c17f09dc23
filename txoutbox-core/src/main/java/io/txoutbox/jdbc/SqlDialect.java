package io.txoutbox.jdbc;

import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import java.util.Map;
import java.util.Set;

/**
 * Every statement txoutbox runs on one database, and what that database can do. {@link PostgresDialect}
 * is the reference and holds every statement; {@link MariaDbDialect} and {@link H2Dialect} override only
 * what their database does differently, what they share in {@link ShortTransactionDialect}. What a database cannot do is a capability method that says so
 * ({@link #supportsUpdateReturning()}, {@link #supportsArrayMarks()}, {@link #supportsListen()}): the store
 * then takes another path, and the statements of the path it does not take refuse to be asked for.
 *
 * <p>Statements are templates: {@link OutboxSql} replaces their tokens once per table with validated
 * identifiers: {@code {table}}, {@code {name}} (the table without schema, for derived objects), {@code
 * {channel}}, the mappable columns {@code {id}}, {@code {aggregate_type}}, {@code {aggregate_id}}, {@code
 * {event_type}} and {@code {payload}}; {@code {now}} (the database clock), {@code {lease_expiry}} (the
 * database clock plus a bound number of milliseconds) and {@code {head}} (the ordered-mode filter, empty
 * when unordered), {@code {fair_key}} (the column fair claims share, {@code tenant_id} when none). {@code {ids}} becomes a list of placeholders when a statement runs. Each method says
 * what it binds, in order, and the labels of the columns it returns: the store reads columns by name.
 *
 * <p>The claimed columns, whatever the column mapping, are labelled {@code id}, {@code aggregate_type},
 * {@code aggregate_id}, {@code event_type}, {@code event_version}, {@code payload}, {@code content_type},
 * {@code headers} (as text), {@code tenant_id}, {@code destination}, {@code created_at}, {@code attempts}
 * and {@code max_attempts} ({@link ClaimedRows} reads them).
 */
interface SqlDialect {

    /** @return the SQL of the database a public {@link Dialect} names */
    static SqlDialect of(Dialect dialect) {
        if (dialect == Dialect.POSTGRESQL) {
            return PostgresDialect.INSTANCE;
        }
        if (dialect == Dialect.MARIADB) {
            return MariaDbDialect.INSTANCE;
        }
        if (dialect == Dialect.H2) {
            return H2Dialect.INSTANCE;
        }
        throw new IllegalArgumentException("unknown dialect " + dialect);
    }

    /** @return the name, as in {@link Dialect#name()} and the migration folders */
    String name();

    // ---- capabilities ------------------------------------------------------------------------------

    /** @return whether a batch is claimed with one {@code UPDATE … RETURNING} ({@link #claimReturning()}) */
    boolean supportsUpdateReturning();

    /** @return whether a batch is marked with one statement over bound arrays ({@link #markDeleting()}) */
    boolean supportsArrayMarks();

    /** @return whether relays can {@code LISTEN} for notifications, and appenders notify after commit */
    boolean supportsListen();

    /** @return whether {@link #inboxInsert()} reports a duplicate as 0 rows (else as SQLState 23505) */
    boolean inboxInsertIgnoresDuplicates();

    /** @return whether ids are stored as text rather than a native uuid type */
    boolean storesUuidAsText();

    /** @return whether times are stored as zone-less UTC timestamps rather than with a time zone */
    boolean storesUtcLocalTimes();

    // ---- schema ------------------------------------------------------------------------------------

    /** @return the outbox table's DDL script, as the migrations ship it */
    String outboxDdl();

    /** @return the inbox table's DDL script */
    String inboxDdl();

    /** @return the optional trigger for writers that are not txoutbox; only where {@link #supportsListen()} */
    String foreignWriterTrigger();

    /** @return the table's columns (schema or null, table): labels {@code name}, {@code type}, {@code nullable} */
    String columns();

    /** @return the type names each kind of column may have in this database's catalogue */
    Map<ColumnKind, Set<String>> types();

    /**
     * @param table the qualified table
     * @param column a column that allows NULL
     * @return the statement an operator runs to forbid NULL there
     */
    String notNullFix(String table, String column);

    // ---- clock -------------------------------------------------------------------------------------

    /** @return the database clock, for leases */
    String now();

    /** @return the database clock plus a bound number of milliseconds */
    String leaseExpiry();

    // ---- append ------------------------------------------------------------------------------------

    /**
     * @return inserts one event; binds id, aggregate type, aggregate id, event type, version, payload,
     *     content type, headers (JSON text), tenant, destination, created at, available at, max attempts
     */
    String insert();

    /** @return change-data-capture mode: deletes the rows just appended; binds {@code {ids}} */
    String deleteAppended();

    // ---- claim -------------------------------------------------------------------------------------

    /**
     * @return claims a batch within a byte budget in one statement and returns the claimed columns and
     *     the labels of {@link PostgresClaimSql#CLAIM_FLAGS}; binds the relay's attempt budget, now, limit,
     *     byte budget (above which a row is read alone), byte budget, owner, lease millis; only where {@link
     *     #supportsUpdateReturning()}
     */
    String claimReturning();

    /**
     * @return whether a claim can start after the position of the relay's last claimed row ({@link
     *     #claimReturningAfter()}) instead of walking the due index from its start
     */
    boolean supportsKeysetClaims();

    /**
     * @return {@link #claimReturning()} starting after a due-index position; binds the relay's attempt
     *     budget, now, the position's available at and seq, limit, byte budget twice, owner, lease millis;
     *     only where {@link #supportsKeysetClaims()}
     */
    String claimReturningAfter();

    /** @return whether claims can be fair across the keys of a column ({@link #claimReturningFair()}) */
    boolean supportsFairClaims();

    /**
     * @return {@link #claimReturning()} fair across the keys of {@code {fair_key}}: the oldest due row of
     *     every key first, then the second of every key, and so on; binds as {@link #claimReturning()}; only
     *     where {@link #supportsFairClaims()}
     */
    String claimReturningFair();

    /** @return the DDL of the index fair claims read, for {@code {fair_key}}; only where {@link #supportsFairClaims()} */
    String fairClaimsDdl();

    /**
     * @return counts the indexes of a table whose definition is like a pattern; binds schema (or null),
     *     table, pattern; label {@code n}
     */
    String fairClaimsIndexExists();

    /**
     * @return statements run before a claim, in its transaction, so that its plan does not depend on
     *     planner statistics; empty where the database needs none
     */
    String claimPlanSettings();

    /**
     * @return statements run before a claim, in its transaction, that let its commit return before its
     *     log is flushed to disk; empty where the database cannot do that for one transaction. A claim
     *     lost in a database crash frees its rows again (a re-publish of that batch, never a loss), and the
     *     mark that follows it flushes it anyway
     */
    String claimCommitSettings();

    /**
     * @return selects and locks due rows, skipping locked ones; binds the relay's attempt budget, now,
     *     limit; returns {@code id}, {@code attempts}, {@code max_attempts}, {@code spent} (the attempt
     *     budget is reached), and the sizes {@code payload_bytes}, {@code header_bytes} and {@code
     *     text_bytes} (the other text columns a claim reads), so the rows within the byte budget are picked
     *     before any of them is read
     */
    String claimSelect();

    /**
     * @return leases the picked rows and counts the attempt, but not of a row whose budget is spent nor
     *     past the column's maximum; binds owner, lease millis, the relay's attempt budget, {@code {ids}}
     */
    String claimUpdate();

    /** @return reads the leased rows: the claimed columns; binds {@code {ids}} */
    String claimRead();

    /** @return marks dead a row whose id cannot be read, by its raw key; binds reason, raw key, owner */
    String quarantine();

    /** @return the earliest due time of pending unleased rows (ordered: of heads); label {@code due} */
    String nextDue();

    // ---- mark --------------------------------------------------------------------------------------

    /** @return extends the lease of rows an owner holds; binds lease millis, owner, {@code {ids}} */
    String extendLease();

    /**
     * @return marks a batch in one statement, deleting published rows; binds ids, states, available at,
     *     errors (four arrays), owner, owner; returns the marked ids ({@code id}); only where {@link
     *     #supportsArrayMarks()}
     */
    String markDeleting();

    /**
     * @return marks a batch in one statement, keeping published rows; binds the four arrays, published
     *     at, owner; returns the marked ids ({@code id}); only where {@link #supportsArrayMarks()}
     */
    String markRetaining();

    /** @return locks the rows of a batch the owner still holds; binds {@code {ids}}, owner; returns {@code id} */
    String lockOwned();

    /** @return deletes published rows; binds {@code {ids}} */
    String deletePublished();

    /** @return keeps published rows as published; binds published at, {@code {ids}} */
    String retainPublished();

    /** @return marks one row retrying or dead; binds state, available at (or NULL), error, id */
    String markOne();

    /** @return returns every lease an owner holds without counting the attempt; binds owner */
    String releaseLeases();

    // ---- operations --------------------------------------------------------------------------------

    /**
     * @return counts by event type in one query; labels {@code event_type}, {@code pending}, {@code
     *     in_flight}, {@code retrying}, {@code dead}, {@code published}, {@code oldest}
     */
    String stats();

    /** @return aggregates whose dead event holds back later pending ones; label {@code n} */
    String blockedAggregates();

    /** @return pending events held back behind a dead event of their aggregate; label {@code n} */
    String blockedEvents();

    /**
     * @param policy the dead-head policy of ordered mode, or {@code null} for unordered
     * @param ofType whether the page is of one event type (binds the type)
     * @param after whether the page starts after an id (binds the last id of the previous page)
     * @return one page of dead events by id, then binds the limit; labels {@code id}, {@code
     *     aggregate_type}, {@code aggregate_id}, {@code event_type}, {@code event_version}, {@code
     *     tenant_id}, {@code attempts}, {@code last_error}, {@code created_at}, {@code held_back}
     */
    String listDead(DeadHeadPolicy policy, boolean ofType, boolean after);

    /** @return the id filter a dead-event selector appends to {@link #revive()} or {@link #deleteDead()} */
    String selectIds();

    /** @return the type filter a dead-event selector appends; binds the type */
    String selectType();

    /** @return puts dead rows back to pending, before the selector's filters; binds available at */
    String revive();

    /** @return deletes dead rows, before the selector's filters */
    String deleteDead();

    /** @return deletes at most a bound number of published rows older than a bound time */
    String purge();

    /**
     * @param policy the dead-head policy, or {@code null} for unordered
     * @return the filter {@code {head}}: only the oldest unfinished event of an aggregate is due
     */
    String headFilter(DeadHeadPolicy policy);

    // ---- inbox -------------------------------------------------------------------------------------

    /** @return records a processed event id; binds consumer, event id, processed at */
    String inboxInsert();

    /** @return deletes a consumer's old records; binds consumer, processed before */
    String inboxPurge();

    // ---- published partitions ----------------------------------------------------------------------
    // Published rows kept in an archive table partitioned by published_at, dropped a partition at a time
    // (PublishedPartitions). Tokens besides the usual: {archive} (the archive table, qualified),
    // {archive_default} (its default partition), {partition} (one period's partition), {from} and {to}
    // (its bounds, rendered from instants the store computed, never from input).

    /** @return whether published rows can live in a range-partitioned archive table */
    boolean supportsPublishedPartitions();

    /** @return the archive table's DDL: the table, its default partition and the default's index */
    String archiveDdl();

    /**
     * @return marks a batch in one statement, moving published rows into the archive; binds the four
     *     arrays, owner, owner, published at; returns the marked ids ({@code id})
     */
    String markArchiving();

    /** @return {@link #stats()} counting the archive's rows as published too */
    String statsWithArchive();

    /**
     * @return the archive's partitions; binds the archive's name; labels {@code name}, {@code
     *     is_default}, {@code lower_bound}, {@code upper_bound} (NULL for bounds that are not times),
     *     {@code rows} (the catalogue's estimate)
     */
    String archivePartitions();

    /**
     * @return the script that adds the partition of one period, moving the default partition's rows of
     *     that period into it; does nothing where the partition exists or another relay is adding one
     *     (the advisory lock {lock}, two keys)
     */
    String addPartition();

    /** @return the script that drops {partition}, if it still exists */
    String dropPartition();

    /** @return deletes at most a bound number of the default partition's rows older than a bound time */
    String purgeArchiveDefault();

    /** The kinds of column the schema check knows. */
    enum ColumnKind {
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
}
