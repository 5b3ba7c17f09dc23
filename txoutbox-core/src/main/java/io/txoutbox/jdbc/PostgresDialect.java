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

    /** What a claim takes: due rows, oldest first, skipping locked ones. Binds now and the limit. */
    static final String DUE = due("");

    /**
     * Where a claim from the cursor starts: at the due-index position of the first row of the relay's
     * last claim, so that the index entries of the rows it published before (dead until vacuumed, and
     * kept while any snapshot is held) are not walked again. A row comparison, so the bound is the index
     * scan's start, not a filter. Binds the position's {@code available_at} and {@code seq}.
     */
    private static final String AFTER_CURSOR = " AND (o.available_at, o.seq) >= (?, ?)";

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
        return claimReturning(DUE);
    }

    @Override
    public boolean supportsKeysetClaims() {
        return supportsUpdateReturning();
    }

    @Override
    public String claimReturningAfter() {
        require(supportsKeysetClaims(), "cannot claim from a cursor");
        return claimReturning(due(AFTER_CURSOR));
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

    /**
     * Also returns each row's due-index position ({@code position_at}, {@code position_seq}), for the cursor,
     * and what {@link ClaimedRows} needs to read the row or not ({@link #CLAIM_FLAGS}): the heavy columns of
     * a row that is not to be read in the batch are returned as NULL.
     */
    private String claimReturning(String due) {
        return claimReturning(
                "WITH due AS (SELECT o.{id}, o.available_at, o.seq, " + sizes("::text", "?") + due + ")",
                "sized.available_at, sized.seq");
    }

    /**
     * @param due the statement's {@code WITH} up to the CTE {@code due}: the locked candidate rows with their
     *     sizes, which binds the relay's attempt budget, now and the limit, in this order
     * @param order the order in which the byte budget counts the candidates
     */
    private String claimReturning(String due, String order) {
        return due + ","
                + " sized AS (SELECT due.*, " + WITHHELD + " AS withheld, CASE WHEN " + WITHHELD
                + " THEN 0 ELSE due.payload_bytes + due.header_bytes END + due.text_bytes AS bytes FROM due),"
                + " picked AS (SELECT d.{id}, d.spent, d.header_bytes, d.bytes, d.withheld OR d.bytes > ? AS unread"
                + " FROM (SELECT sized.*, sum(sized.bytes) OVER (ORDER BY " + order
                + " ROWS UNBOUNDED PRECEDING) - sized.bytes AS before FROM sized) d WHERE d.before < ?)"
                + " UPDATE {table} AS t SET lease_owner = ?,"
                + " lease_expires_at = now() + ? * interval '1 millisecond', attempts = CASE WHEN picked.spent"
                + " OR t.attempts >= 2147483647 THEN t.attempts ELSE t.attempts + 1 END"
                + " FROM picked WHERE t.{id} = picked.{id}"
                + " RETURNING " + claimed("t", "::text", "picked.unread")
                + ", picked.spent AS spent, picked.header_bytes AS header_bytes, picked.bytes AS row_bytes,"
                + " picked.unread AS unread, t.available_at AS position_at, t.seq AS position_seq";
    }

    @Override
    public boolean supportsFairClaims() {
        return supportsUpdateReturning();
    }

    /**
     * A claim fair across the keys of {@code {fair_key}}: a loose index scan walks the keys of the pending
     * rows (one index probe per key, up to the limit of keys), a lateral scan takes each key's oldest due
     * rows up to the limit and ranks them, the NULL key is one more scan, and the candidates are taken by
     * rank (the oldest of every key, then the second of every key, …) up to the limit. Only those are then
     * locked ({@code SKIP LOCKED}) and re-checked, so the rows of a backlog that a claim passes over are
     * read from the index but never locked. The byte budget counts the rows in rank order. The per-key scans
     * bound {@code available_at} with a row comparison on {@code ({fair_key}, available_at)}, which only the
     * key's index can take as its start, so that the planner does not walk the due index instead.
     */
    @Override
    public String claimReturningFair() {
        require(supportsFairClaims(), "cannot claim fairly");
        String free = " AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= {now}){head}";
        String rank = "row_number() OVER (ORDER BY o.{fair_key}, o.available_at, o.seq) AS r";
        String byKey = " ORDER BY o.{fair_key}, o.available_at, o.seq LIMIT";
        String due = "WITH RECURSIVE args AS (SELECT CAST(? AS integer) AS max_attempts,"
                + " CAST(? AS timestamptz) AS due_at, CAST(? AS integer) AS lim),"
                + " walk AS ((SELECT o.{fair_key} AS k FROM {table} o WHERE o.status = 'pending'"
                + " AND o.{fair_key} IS NOT NULL ORDER BY o.{fair_key} LIMIT 1)"
                + " UNION ALL SELECT (SELECT o.{fair_key} FROM {table} o WHERE o.status = 'pending'"
                + " AND o.{fair_key} > walk.k ORDER BY o.{fair_key} LIMIT 1) FROM walk WHERE walk.k IS NOT NULL),"
                + " keys AS (SELECT walk.k FROM walk WHERE walk.k IS NOT NULL LIMIT (SELECT lim FROM args)),"
                + " candidates AS (SELECT c.* FROM keys CROSS JOIN args CROSS JOIN LATERAL"
                + " (SELECT o.{id}, o.available_at, o.seq, " + rank + " FROM {table} o WHERE o.status = 'pending'"
                + " AND o.{fair_key} = keys.k AND (o.{fair_key}, o.available_at) <= (keys.k, args.due_at)" + free
                + byKey + " args.lim) c"
                + " UNION ALL (SELECT o.{id}, o.available_at, o.seq, " + rank + " FROM {table} o CROSS JOIN args"
                + " WHERE o.status = 'pending' AND o.{fair_key} IS NULL AND o.available_at <= args.due_at" + free
                + byKey + " (SELECT lim FROM args))),"
                + " fair AS (SELECT candidates.{id}, candidates.r FROM candidates"
                + " ORDER BY candidates.r, candidates.available_at, candidates.seq LIMIT (SELECT lim FROM args)),"
                + " due AS (SELECT o.{id}, o.available_at, o.seq, fair.r, " + sizes("::text", "args.max_attempts")
                + " FROM {table} o JOIN fair ON o.{id} = fair.{id} CROSS JOIN args WHERE o.status = 'pending'"
                + " AND o.available_at <= args.due_at" + free + " FOR UPDATE OF o SKIP LOCKED)";
        return claimReturning(due, "sized.r, sized.available_at, sized.seq");
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

    /**
     * The labels a claim adds to the claimed columns: {@code spent} (the row's attempts reached its budget
     * before this claim), {@code header_bytes}, {@code row_bytes} (what the byte budget counted of it) and
     * {@code unread} (its payload and headers were not read: spent, headers beyond {@link
     * ClaimedRows#MAX_HEADERS_BYTES}, or larger than the byte budget, to be read alone).
     */
    static final String CLAIM_FLAGS = "spent, header_bytes, row_bytes, unread";

    /** A row whose payload and headers the claim does not read at all: spent, or headers beyond the bound. */
    private static final String WITHHELD = "(due.spent OR due.header_bytes > " + ClaimedRows.MAX_HEADERS_BYTES + ")";

    /**
     * What a claim reads of a candidate row before it decides to read it: whether its attempt budget is
     * spent (its own {@code max_attempts}, else the relay's, bound), and the bytes of every variable-size
     * column it would read (sizes only: no value is read to measure it). Binds the relay's attempt budget.
     *
     * @param headersCast what turns the headers column into text, if anything
     */
    String sizes(String headersCast) {
        return sizes(headersCast, "?");
    }

    /** @param budget the relay's attempt budget: a placeholder or a column */
    private String sizes(String headersCast, String budget) {
        return "COALESCE(o.attempts >= COALESCE(o.max_attempts, " + budget + "), false) AS spent, "
                + size("o.{payload}")
                + " AS payload_bytes, " + size("o.headers" + headersCast) + " AS header_bytes, "
                + size("o.{aggregate_type}") + " + " + size("o.{aggregate_id}") + " + " + size("o.{event_type}")
                + " + " + size("o.content_type") + " + " + size("o.tenant_id") + " + " + size("o.destination")
                + " AS text_bytes";
    }

    /** In 64 bits: two columns of a gigabyte each would overflow the 32 bits of {@code octet_length}. */
    private String size(String column) {
        return "CAST(COALESCE(octet_length(" + column + "), 0) AS " + bigint() + ")";
    }

    /** @return the 64-bit integer type of a {@code CAST} */
    String bigint() {
        return "BIGINT";
    }

    private static String due(String after) {
        return " FROM {table} o WHERE o.status = 'pending' AND o.available_at <= ?" + after
                + " AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= {now}){head}"
                + " ORDER BY o.available_at, o.seq LIMIT ? FOR UPDATE SKIP LOCKED";
    }

    @Override
    public String claimSelect() {
        return "SELECT o.{id} AS id, o.attempts AS attempts, o.max_attempts AS max_attempts, " + sizes(headersAsText())
                + DUE;
    }

    @Override
    public String claimUpdate() {
        return "UPDATE {table} SET lease_owner = ?, lease_expires_at = {lease_expiry}, attempts = CASE WHEN"
                + " attempts >= COALESCE(max_attempts, ?) OR attempts >= 2147483647 THEN attempts ELSE attempts + 1 END"
                + " WHERE {id} IN ({ids})";
    }

    @Override
    public String claimRead() {
        return "SELECT " + claimed("o", "", null) + " FROM {table} o WHERE o.{id} IN ({ids})";
    }

    /** @return what turns the headers column into text in {@link #claimSelect()}'s sizes */
    String headersAsText() {
        return "::text";
    }

    /**
     * @param alias the table's alias
     * @param headersCast what turns the headers column into text, if anything
     * @param unread a condition under which payload and headers are returned as NULL, or {@code null}
     * @return the claimed columns, labelled as {@link SqlDialect} lists them
     */
    static String claimed(String alias, String headersCast, String unread) {
        String a = alias + ".";
        String payload = a + "{payload}";
        String headers = a + "headers" + headersCast;
        if (unread != null) {
            payload = "CASE WHEN " + unread + " THEN NULL ELSE " + payload + " END";
            headers = "CASE WHEN " + unread + " THEN NULL ELSE " + headers + " END";
        }
        return a + "{id} AS id, " + a + "{aggregate_type} AS aggregate_type, " + a + "{aggregate_id} AS aggregate_id, "
                + a + "{event_type} AS event_type, " + a + "event_version AS event_version, " + payload
                + " AS payload, " + a + "content_type AS content_type, " + headers + " AS headers, " + a
                + "tenant_id AS tenant_id, " + a + "destination AS destination, " + a + "created_at AS created_at, "
                + a + "attempts AS attempts, " + a + "max_attempts AS max_attempts";
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
