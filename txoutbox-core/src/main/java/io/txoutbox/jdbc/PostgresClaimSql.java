package io.txoutbox.jdbc;

/**
 * The claim statements of {@link PostgresDialect} (and of the dialects that share its SQL): which rows a
 * claim takes (due, oldest first or fair across a column's keys, from the bottom or from a cursor), what it
 * reads of each before it decides to read it (the sizes the byte budget counts), and what it returns. The
 * dialect's hooks ({@link PostgresDialect#bigint()}) say what differs.
 */
final class PostgresClaimSql {
    /** What a claim takes: due rows, oldest first, skipping locked ones. Binds now and the limit. */
    static final String DUE = due("");

    /**
     * Where a claim from the cursor starts: at the due-index position of the first row of the relay's
     * last claim, so that the index entries of the rows it published before (dead until vacuumed, and
     * kept while any snapshot is held) are not walked again. A row comparison, so the bound is the index
     * scan's start, not a filter. Binds the position's {@code available_at} and {@code seq}.
     */
    static final String AFTER_CURSOR = " AND (o.available_at, o.seq) >= (?, ?)";

    private final PostgresDialect dialect;

    /** @param dialect whose hooks the statements use */
    PostgresClaimSql(PostgresDialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Also returns each row's due-index position ({@code position_at}, {@code position_seq}), for the cursor,
     * and what {@link ClaimedRows} needs to read the row or not ({@link #CLAIM_FLAGS}): the heavy columns of
     * a row that is not to be read in the batch are returned as NULL.
     */
    String returning(String due) {
        return returning(
                "WITH due AS (SELECT o.{id}, o.available_at, o.seq, " + sizes("::text", "?") + due + ")",
                "sized.available_at, sized.seq");
    }

    /**
     * @param due the statement's {@code WITH} up to the CTE {@code due}: the locked candidate rows with their
     *     sizes, which binds the relay's attempt budget, now and the limit, in this order
     * @param order the order in which the byte budget counts the candidates
     */
    String returning(String due, String order) {
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
    String fair() {
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
        return returning(due, "sized.r, sized.available_at, sized.seq");
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
        return "CAST(COALESCE(octet_length(" + column + "), 0) AS " + dialect.bigint() + ")";
    }

    static String due(String after) {
        return " FROM {table} o WHERE o.status = 'pending' AND o.available_at <= ?" + after
                + " AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= {now}){head}"
                + " ORDER BY o.available_at, o.seq LIMIT ? FOR UPDATE SKIP LOCKED";
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
}
