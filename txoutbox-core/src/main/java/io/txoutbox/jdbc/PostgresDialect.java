package io.txoutbox.jdbc;

import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL 14 or later: the reference dialect, holding every statement txoutbox runs. The other
 * dialects extend it and override only what their database does differently.
 *
 * <p>PostgreSQL claims a batch with one {@code UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED) …
 * RETURNING} and marks it with one statement over {@code unnest}ed arrays; its relays listen for
 * notifications. The statements of the other path (claim with a short transaction, mark row by row) are
 * portable SQL that every dialect shares, as are the admin operations' and the inbox's ({@link
 * PortableDialect}).
 */
class PostgresDialect extends PortableDialect {
    static final PostgresDialect INSTANCE = new PostgresDialect();

    private final PostgresClaimSql claims = new PostgresClaimSql(this);

    /**
     * Makes the claims' plans independent of planner statistics: on a table never analyzed (a new table,
     * a bulk load, a restored dump) the planner would otherwise estimate a handful of rows and pick a
     * sequential scan and a sort (0.7 to 1.7 s for 100,000 rows, again for every new connection's first
     * executions), where the due index gives the claim's order for free. The costs of the plans so
     * disabled would push the claim past {@code jit_above_cost}, and compiling it would cost more than
     * running it, so JIT is off for the claim too. {@code SET LOCAL} runs in the claim's own implicit
     * transaction (one round trip with it) and ends with it: nothing leaks to the pooled connection.
     */
    private static final String PLAN_SETTINGS = "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;"
            + " SET LOCAL enable_sort = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off;"
            + " SET LOCAL jit = off; ";

    private static final String CLAIM_COMMIT_SETTINGS = "SET LOCAL synchronous_commit = off; ";

    private static final String INSERT = "INSERT INTO {table} ({id}, {aggregate_type}, {aggregate_id},"
            + " {event_type}, event_version, {payload}, content_type, headers, tenant_id, destination, created_at,"
            + " available_at, max_attempts) VALUES ";

    private static final String MARK_INPUT = "WITH input AS (SELECT * FROM unnest(?::uuid[], ?::varchar[],"
            + " ?::text[], ?::text[]) AS i(id, status, available_at, error))";

    private static final String MARK_UPDATE = " UPDATE {table} AS t SET status = i.status,"
            + " available_at = CASE WHEN i.status = 'pending' THEN i.available_at::timestamptz"
            + " ELSE t.available_at END,"
            + " last_error = CASE WHEN i.status = 'published' THEN t.last_error ELSE i.error END,"
            + " lease_owner = NULL, lease_expires_at = NULL";

    PostgresDialect() {}

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public boolean supportsUpdateReturning() {
        return true;
    }

    @Override
    public boolean supportsArrayMarks() {
        return true;
    }

    @Override
    public boolean supportsListen() {
        return true;
    }

    @Override
    public boolean inboxInsertIgnoresDuplicates() {
        return true;
    }

    @Override
    public boolean storesUuidAsText() {
        return false;
    }

    @Override
    public boolean storesUtcLocalTimes() {
        return false;
    }

    // ---- schema ------------------------------------------------------------------------------------

    /**
     * Also drops the trigger of txoutbox 0.1 that notified from every appending transaction, and gives
     * the table autovacuum settings of its own; the migrations V1, V3 and V4 in this order.
     */
    @Override
    public String outboxDdl() {
        return super.outboxDdl() + "\n" + resource("postgresql-drop-commit-notify.sql") + "\n"
                + resource("postgresql-autovacuum.sql");
    }

    @Override
    public String foreignWriterTrigger() {
        require(supportsListen(), "has no notifications, so no trigger can wake relays");
        return resource("postgresql-wake-trigger.sql");
    }

    @Override
    public String columns() {
        return "SELECT column_name AS name, udt_name AS type, is_nullable AS nullable FROM information_schema.columns"
                + " WHERE table_schema = COALESCE(?, current_schema()) AND table_name = ?";
    }

    @Override
    public Map<ColumnKind, Set<String>> types() {
        return Map.of(
                ColumnKind.UUID, Set.of("uuid"),
                ColumnKind.TEXT, Set.of("varchar", "text"),
                ColumnKind.BYTES, Set.of("bytea"),
                ColumnKind.TIME, Set.of("timestamptz"),
                ColumnKind.INTEGER, Set.of("int4", "int8"),
                ColumnKind.JSON, Set.of("jsonb"));
    }

    @Override
    public String notNullFix(String table, String column) {
        return "ALTER TABLE " + table + " ALTER COLUMN " + column + " SET NOT NULL";
    }

    // ---- clock -------------------------------------------------------------------------------------

    @Override
    public String now() {
        return "now()";
    }

    @Override
    public String leaseExpiry() {
        return "now() + ? * interval '1 millisecond'";
    }

    // ---- append ------------------------------------------------------------------------------------

    @Override
    public String insert() {
        return INSERT + "(?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?)";
    }

    /** The placeholders of {@link #insert()} without a cast: for databases that take JSON as text. */
    static String insertWithTextHeaders() {
        return INSERT + "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    }

    @Override
    public String deleteAppended() {
        return "DELETE FROM {table} WHERE {id} IN ({ids})";
    }

    // ---- claim -------------------------------------------------------------------------------------

    /**
     * {@code octet_length} reads the size from the TOAST header without detoasting: payloads beyond the
     * byte budget are never read, and only the picked rows are updated and returned.
     */
    @Override
    public String claimReturning() {
        require(supportsUpdateReturning(), "has no UPDATE … RETURNING");
        return claims.returning(PostgresClaimSql.DUE);
    }

    @Override
    public boolean supportsKeysetClaims() {
        return supportsUpdateReturning();
    }

    @Override
    public String claimReturningAfter() {
        require(supportsKeysetClaims(), "cannot claim from a cursor");
        return claims.returning(PostgresClaimSql.due(PostgresClaimSql.AFTER_CURSOR));
    }

    @Override
    public String claimPlanSettings() {
        return PLAN_SETTINGS;
    }

    /**
     * The claim's commit does not wait for its WAL to reach the disk ({@code synchronous_commit} off for
     * the claim's transaction alone; every other transaction keeps the server's setting). At low rates a
     * relay claims a few rows per wake-up, and two flushes per batch (the claim's and the mark's) took as
     * much of the disk as the appending transactions it relays; the claim's flush also sat between a
     * commit and its publish. Durability is kept where it matters: the mark commits with a flush, which
     * writes the claim's WAL with it, and a claim lost in a crash before that only frees its rows again,
     * so that its batch is published again, as after a relay's crash.
     */
    @Override
    public String claimCommitSettings() {
        return CLAIM_COMMIT_SETTINGS;
    }

    @Override
    public boolean supportsFairClaims() {
        return supportsUpdateReturning();
    }

    /** See {@link PostgresClaimSql#fair()}. */
    @Override
    public String claimReturningFair() {
        require(supportsFairClaims(), "cannot claim fairly");
        return claims.fair();
    }

    @Override
    public String fairClaimsDdl() {
        require(supportsFairClaims(), "cannot claim fairly");
        return resource("postgresql-fair-claims.sql");
    }

    @Override
    public String fairClaimsIndexExists() {
        return "SELECT count(*) AS n FROM pg_indexes WHERE schemaname = COALESCE(?, current_schema())"
                + " AND tablename = ? AND indexdef LIKE ?";
    }

    /** @return the 64-bit integer type of a {@code CAST} */
    String bigint() {
        return "BIGINT";
    }

    @Override
    public String claimSelect() {
        return "SELECT o.{id} AS id, o.attempts AS attempts, o.max_attempts AS max_attempts, "
                + claims.sizes(headersAsText()) + PostgresClaimSql.DUE;
    }

    @Override
    public String claimUpdate() {
        return "UPDATE {table} SET lease_owner = ?, lease_expires_at = {lease_expiry}, attempts = CASE WHEN"
                + " attempts >= COALESCE(max_attempts, ?) OR attempts >= 2147483647 THEN attempts ELSE attempts + 1 END"
                + " WHERE {id} IN ({ids})";
    }

    @Override
    public String claimRead() {
        return "SELECT " + PostgresClaimSql.claimed("o", "", null) + " FROM {table} o WHERE o.{id} IN ({ids})";
    }

    /** @return what turns the headers column into text in {@link #claimSelect()}'s sizes */
    String headersAsText() {
        return "::text";
    }

    @Override
    public String quarantine() {
        return "UPDATE {table} SET status = 'dead', last_error = ?, lease_owner = NULL,"
                + " lease_expires_at = NULL WHERE {id} = ? AND lease_owner = ?";
    }

    /**
     * In ordered mode only heads count: a due event behind a retrying or dead head is not due. And only rows
     * that come due after now: a relay asks when it found nothing, and a row already due that its
     * claim did not reach is behind its cursor, its rescans' to take. So the query starts in the index at
     * now and walks none of the entries of rows published since the last vacuum, which lie below it (under
     * a held snapshot, hundreds of thousands: the relay thread asked this each time it went idle, and
     * waited for that walk).
     */
    @Override
    public String nextDue() {
        return "SELECT min(o.available_at) AS due FROM {table} o WHERE o.status = 'pending' AND o.available_at > {now}"
                + " AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= {now}){head}";
    }

    // ---- mark --------------------------------------------------------------------------------------

    @Override
    public String extendLease() {
        return "UPDATE {table} SET lease_expires_at = {lease_expiry}"
                + " WHERE lease_owner = ? AND status = 'pending' AND {id} IN ({ids})";
    }

    @Override
    public String markDeleting() {
        require(supportsArrayMarks(), "cannot mark a batch from bound arrays");
        return MARK_INPUT
                + ", deleted AS (DELETE FROM {table} AS t USING input AS i WHERE t.{id} = i.id"
                + " AND i.status = 'published' AND t.lease_owner = ? RETURNING t.{id})"
                + ", updated AS (" + MARK_UPDATE + " FROM input AS i WHERE t.{id} = i.id"
                + " AND i.status <> 'published' AND t.lease_owner = ? RETURNING t.{id})"
                + " SELECT {id} AS id FROM deleted UNION ALL SELECT {id} FROM updated";
    }

    @Override
    public String markRetaining() {
        require(supportsArrayMarks(), "cannot mark a batch from bound arrays");
        return MARK_INPUT
                + ", updated AS (" + MARK_UPDATE
                + ", published_at = CASE WHEN i.status = 'published' THEN ?::timestamptz"
                + " ELSE t.published_at END"
                + " FROM input AS i WHERE t.{id} = i.id AND t.lease_owner = ? RETURNING t.{id})"
                + " SELECT {id} AS id FROM updated";
    }

    @Override
    public String lockOwned() {
        return "SELECT {id} AS id FROM {table} WHERE {id} IN ({ids}) AND lease_owner = ? FOR UPDATE";
    }

    @Override
    public String deletePublished() {
        return "DELETE FROM {table} WHERE {id} IN ({ids})";
    }

    @Override
    public String retainPublished() {
        return "UPDATE {table} SET status = 'published', published_at = ?, lease_owner = NULL,"
                + " lease_expires_at = NULL WHERE {id} IN ({ids})";
    }

    @Override
    public String markOne() {
        return "UPDATE {table} SET status = ?, available_at = COALESCE(?, available_at), last_error = ?,"
                + " lease_owner = NULL, lease_expires_at = NULL WHERE {id} = ?";
    }

    @Override
    public String releaseLeases() {
        return "UPDATE {table} SET lease_owner = NULL, lease_expires_at = NULL,"
                + " attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END"
                + " WHERE lease_owner = ? AND status = 'pending'";
    }

    // ---- published partitions ----------------------------------------------------------------------

    @Override
    public boolean supportsPublishedPartitions() {
        return true;
    }

    @Override
    public String archiveDdl() {
        require(supportsPublishedPartitions(), "has no declarative partitions");
        return resource("postgresql-outbox-published.sql");
    }

    /** The fence is the delete's: a row another relay holds is not moved, so it is not archived either. */
    @Override
    public String markArchiving() {
        require(supportsPublishedPartitions(), "has no declarative partitions");
        String kept = "{id}, seq, {aggregate_type}, {aggregate_id}, {event_type}, event_version, {payload},"
                + " content_type, headers, tenant_id, destination, created_at, available_at, attempts, max_attempts,"
                + " last_error";
        return MARK_INPUT
                + ", updated AS (" + MARK_UPDATE + " FROM input AS i WHERE t.{id} = i.id"
                + " AND i.status <> 'published' AND t.lease_owner = ? RETURNING t.{id})"
                + ", moved AS (DELETE FROM {table} AS t USING input AS i WHERE t.{id} = i.id"
                + " AND i.status = 'published' AND t.lease_owner = ? RETURNING t.*)"
                + ", archived AS (INSERT INTO {archive} (" + kept + ", status, published_at) SELECT " + kept
                + ", 'published', ?::timestamptz FROM moved)"
                + " SELECT {id} AS id FROM moved UNION ALL SELECT {id} FROM updated";
    }

    /** {@link #stats()} over the union of both tables, so a row moving between them is counted once. */
    @Override
    public String statsWithArchive() {
        String cols = "{event_type}, status, lease_expires_at, attempts, created_at";
        return stats().replace(
                        " FROM {table} GROUP BY",
                        " FROM (SELECT " + cols + " FROM {table} UNION ALL" + " SELECT " + cols
                                + " FROM {archive}) s GROUP BY");
    }

    @Override
    public String archivePartitions() {
        return "SELECT c.relname AS name, e.expr = 'DEFAULT' AS is_default, m.b[1]::timestamptz AS lower_bound,"
                + " m.b[2]::timestamptz AS upper_bound, greatest(c.reltuples, 0)::bigint AS rows FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS expr) e"
                + " CROSS JOIN LATERAL (SELECT regexp_match(e.expr, 'FROM \\(''([^'']*)''\\) TO \\(''([^'']*)''\\)') AS b) m"
                + " WHERE i.inhparent = to_regclass(?)";
    }

    @Override
    public String addPartition() {
        return resource("postgresql-outbox-published-partition.sql");
    }

    /** Locks the archive first, as readers of it do, so that a drop and a reader cannot deadlock. */
    @Override
    public String dropPartition() {
        return "SET LOCAL lock_timeout = '1s';\n\nLOCK TABLE {archive} IN ACCESS EXCLUSIVE MODE;\n\n"
                + "DROP TABLE IF EXISTS {partition};";
    }

    @Override
    public String purgeArchiveDefault() {
        return "DELETE FROM {archive_default} WHERE ctid = ANY (ARRAY(SELECT ctid FROM {archive_default}"
                + " WHERE published_at < ? LIMIT ?))";
    }

    @Override
    public String toString() {
        return "SqlDialect[" + name() + "]";
    }
}
