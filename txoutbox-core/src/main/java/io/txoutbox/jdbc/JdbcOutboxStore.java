package io.txoutbox.jdbc;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxStats.TypeStats;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.OutboxTable;
import io.txoutbox.WakeupCounters;
import io.txoutbox.jdbc.SqlDialect.ColumnKind;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.WakeSubscription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC outbox store: every statement of one {@link SqlDialect}, rendered once for one {@link
 * OutboxTable}. Thread-safe; one per table and data source.
 */
final class JdbcOutboxStore implements OutboxStore {
    private static final Logger log = LoggerFactory.getLogger(JdbcOutboxStore.class);

    /** Longest error text kept in {@code last_error}. */
    static final int MAX_ERROR_CHARS = 4_000;

    /** Ids per DELETE of change-data-capture mode: one statement for any usual batch. */
    static final int CDC_DELETE_CHUNK = 1_000;

    private final DataSource dataSource;
    private final OutboxTable table;
    private final SqlDialect dialect;
    private final DeadHeadPolicy ordered;
    private final boolean changeDataCapture;
    private final Binder bind;
    private final String insertSql;
    private final String claimSql;
    private final String claimSelectSql;
    private final String claimReadSql;
    private final String quarantineSql;
    private final String extendSql;
    private final String completeDeleteSql;
    private final String completeRetainSql;
    private final String releaseSql;
    private final String nextDueSql;
    private final String statsSql;
    private final List<Runnable> subscribers = new CopyOnWriteArrayList<>();
    private final WakeupOptions wakeups;
    /** Wakes relays of other processes after commit; {@code null} where the database cannot notify. */
    private final PgNotifier notifier;

    private JdbcOutboxStore(
            DataSource dataSource,
            OutboxTable table,
            SqlDialect dialect,
            DeadHeadPolicy ordered,
            WakeupOptions wakeups,
            ThreadFactory threadFactory,
            boolean changeDataCapture) {
        this.dataSource = dataSource;
        this.table = table;
        this.dialect = dialect;
        this.ordered = ordered;
        this.wakeups = wakeups;
        this.notifier = dialect.notifySql() != null && wakeups.notifyAfterCommit() && !changeDataCapture
                ? new PgNotifier(
                        dataSource, dialect.notifySql(), table.channel(), wakeups.notifyWindow(), threadFactory)
                : null;
        this.changeDataCapture = changeDataCapture;
        this.bind = new Binder(dialect);
        this.insertSql = render(dialect.insert());
        this.claimSql = dialect.claim() == null ? null : render(dialect.claim());
        this.claimSelectSql = render(dialect.claimSelect());
        this.claimReadSql = render("SELECT " + SqlDialect.COLUMNS + " FROM {table} o WHERE o.{id} IN ({ids})");
        this.quarantineSql = render("UPDATE {table} SET status = 'dead', last_error = ?, lease_owner = NULL,"
                + " lease_expires_at = NULL WHERE {id} = ? AND lease_owner = ?");
        this.extendSql = render("UPDATE {table} SET lease_expires_at = {lease_expiry}"
                + " WHERE lease_owner = ? AND status = 'pending' AND {id} IN ({ids})");
        this.completeDeleteSql = dialect.completeDelete() == null ? null : render(dialect.completeDelete());
        this.completeRetainSql = dialect.completeRetain() == null ? null : render(dialect.completeRetain());
        this.releaseSql = render("UPDATE {table} SET lease_owner = NULL, lease_expires_at = NULL,"
                + " attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END"
                + " WHERE lease_owner = ? AND status = 'pending'");
        // In ordered mode only heads count: a due event behind a retrying or dead head is not due.
        this.nextDueSql = render("SELECT min(o.available_at) FROM {table} o WHERE o.status = 'pending'"
                + " AND (o.lease_expires_at IS NULL OR o.lease_expires_at <= {now}){head}");
        this.statsSql = render("SELECT {event_type},"
                + " sum(CASE WHEN status = 'pending' AND (lease_expires_at IS NULL"
                + " OR lease_expires_at <= {now}) THEN 1 ELSE 0 END),"
                + " sum(CASE WHEN status = 'pending' AND lease_expires_at > {now} THEN 1 ELSE 0 END),"
                + " sum(CASE WHEN status = 'pending' AND attempts > 0 AND (lease_expires_at IS NULL"
                + " OR lease_expires_at <= {now}) THEN 1 ELSE 0 END),"
                + " sum(CASE WHEN status = 'dead' THEN 1 ELSE 0 END),"
                + " sum(CASE WHEN status = 'published' THEN 1 ELSE 0 END),"
                + " min(CASE WHEN status = 'pending' THEN created_at END)"
                + " FROM {table} GROUP BY {event_type}");
    }

    /**
     * @param dataSource where the table lives
     * @param table the table and its column names
     * @param dialect the database's SQL
     * @param ordered the dead-head policy of ordered mode, or {@code null} for unordered
     * @param wakeups how relays of other processes are woken
     * @param threadFactory makes the notifier's thread, or {@code null} for a daemon thread named {@code
     *     txoutbox-notify-<table>}
     * @param changeDataCapture whether append deletes each inserted row in the same transaction, for a
     *     table read by a change-data-capture connector instead of relays (which then need no wake-ups)
     * @return the store; close it to stop its notifier
     */
    static JdbcOutboxStore create(
            DataSource dataSource,
            OutboxTable table,
            SqlDialect dialect,
            DeadHeadPolicy ordered,
            WakeupOptions wakeups,
            ThreadFactory threadFactory,
            boolean changeDataCapture) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource is required");
        }
        ThreadFactory threads = threadFactory != null
                ? threadFactory
                : r -> {
                    Thread t = new Thread(r, "txoutbox-notify-" + table.qualifiedName());
                    t.setDaemon(true);
                    return t;
                };
        return new JdbcOutboxStore(dataSource, table, dialect, ordered, wakeups, threads, changeDataCapture);
    }

    @Override
    public boolean changeDataCapture() {
        return changeDataCapture;
    }

    @Override
    public String table() {
        return table.qualifiedName();
    }

    /** Renders a statement template for this table: the tokens {@link SqlDialect} lists. */
    String render(String template) {
        return render(template, table, dialect, ordered);
    }

    /** The outbox table's DDL, as {@link #createSchema()} runs it and the migrations ship it. */
    static String outboxDdl(OutboxTable table, SqlDialect dialect) {
        return render(dialect.outboxDdl(), table, dialect, null);
    }

    /** The optional PostgreSQL trigger that wakes idle relays for writers that are not txoutbox. */
    static String foreignWriterWakeupDdl(OutboxTable table) {
        return PgWakeups.render(render(FOREIGN_WRITER_TRIGGER, table, SqlDialect.POSTGRESQL, null), table);
    }

    private static final String FOREIGN_WRITER_TRIGGER = SqlDialect.resource("postgresql-wake-trigger.sql");

    private static String render(String template, OutboxTable table, SqlDialect dialect, DeadHeadPolicy ordered) {
        OutboxTable.Columns c = table.columns();
        String head = ordered == null
                ? ""
                : " AND NOT EXISTS (SELECT 1 FROM {table} p WHERE p.{aggregate_type} = o.{aggregate_type}"
                        + " AND p.{aggregate_id} = o.{aggregate_id} AND p.seq < o.seq AND p.status IN ("
                        + (ordered == DeadHeadPolicy.BLOCK ? "'pending', 'dead'" : "'pending'") + "))";
        return template.replace("{head}", head)
                .replace("{lease_expiry}", dialect.leaseExpiry())
                .replace("{now}", dialect.now())
                .replace("{table}", table.qualifiedName())
                .replace("{name}", table.name())
                .replace("{channel}", table.channel())
                .replace("{id}", c.id())
                .replace("{aggregate_type}", c.aggregateType())
                .replace("{aggregate_id}", c.aggregateId())
                .replace("{event_type}", c.eventType())
                .replace("{payload}", c.payload());
    }

    @Override
    public void append(Connection connection, List<OutboxEvent> events, Instant now) {
        if (events.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement(insertSql)) {
            for (OutboxEvent e : events) {
                Instant availableAt =
                        e.availableAt() != null ? e.availableAt() : e.delay() != null ? now.plus(e.delay()) : now;
                bind.setId(ps, 1, e.id());
                ps.setString(2, e.aggregateType());
                ps.setString(3, e.aggregateId());
                ps.setString(4, e.eventType());
                ps.setInt(5, e.eventVersion());
                ps.setBytes(6, e.payload());
                ps.setString(7, e.contentType());
                ps.setString(8, HeadersJson.write(e.headers()));
                ps.setString(9, e.tenantId());
                ps.setString(10, e.destination());
                bind.setTime(ps, 11, now);
                bind.setTime(ps, 12, availableAt);
                if (e.maxAttempts() == null) {
                    ps.setNull(13, java.sql.Types.INTEGER);
                } else {
                    ps.setInt(13, e.maxAttempts());
                }
                if (events.size() > 1) {
                    ps.addBatch();
                }
            }
            if (events.size() > 1) {
                ps.executeBatch();
            } else {
                ps.executeUpdate();
            }
            if (changeDataCapture) {
                deleteAppended(connection, events);
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of("append", table(), e);
        }
    }

    /**
     * Change-data-capture mode: the rows just inserted are deleted in the same transaction, so the
     * change stream carries each INSERT while the table stays empty (nothing to vacuum, no relay
     * needed). A connector skips the DELETEs (see the module txoutbox-debezium).
     */
    private void deleteAppended(Connection connection, List<OutboxEvent> events) throws SQLException {
        for (int from = 0; from < events.size(); from += CDC_DELETE_CHUNK) {
            List<OutboxEvent> chunk = events.subList(from, Math.min(events.size(), from + CDC_DELETE_CHUNK));
            String sql = render("DELETE FROM {table} WHERE {id} IN (" + Binder.placeholders(chunk.size()) + ")");
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                int i = 1;
                for (OutboxEvent e : chunk) {
                    bind.setId(ps, i++, e.id());
                }
                ps.executeUpdate();
            }
        }
    }

    @Override
    public ClaimResult claim(String owner, int limit, long maxBytes, Duration lease, Instant now) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes is " + maxBytes + "; it must be 1 or more");
        }
        if (claimSql != null) {
            return withConnection("claim", c -> {
                List<Row> rows;
                try (PreparedStatement ps = c.prepareStatement(claimSql)) {
                    bind.setTime(ps, 1, now);
                    ps.setInt(2, limit);
                    ps.setLong(3, maxBytes);
                    ps.setString(4, owner);
                    ps.setLong(5, lease.toMillis());
                    try (ResultSet rs = ps.executeQuery()) {
                        rows = readRows(rs);
                    }
                }
                return settleRows(c, rows, owner);
            });
        }
        return inTransaction("claim", c -> {
            // Ids and sizes first: the rows within the byte budget are picked before any payload is read.
            List<Object> keys = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(claimSelectSql)) {
                bind.setTime(ps, 1, now);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    long before = 0;
                    while (rs.next() && before < maxBytes) {
                        keys.add(rs.getObject(1));
                        before += rs.getLong(2);
                    }
                }
            }
            if (keys.isEmpty()) {
                return ClaimResult.EMPTY;
            }
            String in = Binder.placeholders(keys.size());
            try (PreparedStatement ps =
                    c.prepareStatement(render(dialect.claimUpdate()).replace("{ids}", in))) {
                ps.setString(1, owner);
                ps.setLong(2, lease.toMillis());
                int i = 3;
                for (Object key : keys) {
                    ps.setObject(i++, key);
                }
                ps.executeUpdate();
            }
            List<Row> rows;
            try (PreparedStatement ps = c.prepareStatement(claimReadSql.replace("{ids}", in))) {
                int i = 1;
                for (Object key : keys) {
                    ps.setObject(i++, key);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rows = readRows(rs);
                }
            }
            return settleRows(c, rows, owner);
        });
    }

    /** One claimed row: an event, or why it could not be read, or (no id) the raw key to quarantine it by. */
    private record Row(ClaimedEvent event, UUID id, String rawKey, String problem) {}

    /**
     * Converts each row on its own: a row that cannot be read becomes a reason, never an exception for
     * the whole claim, so one bad row cannot stop a table.
     */
    private List<Row> readRows(ResultSet rs) throws SQLException {
        List<Row> rows = new ArrayList<>();
        while (rs.next()) {
            UUID id;
            try {
                id = bind.getId(rs, 1);
            } catch (SQLException | RuntimeException bad) {
                rows.add(new Row(null, null, rs.getString(1), "id is not a UUID"));
                continue;
            }
            if (id == null) {
                rows.add(new Row(null, null, null, "column '" + table.columns().id() + "' is NULL"));
                continue;
            }
            try {
                rows.add(new Row(readClaimed(id, rs), id, null, null));
            } catch (SQLException bad) {
                rows.add(new Row(null, id, null, OutboxStoreException.describe(bad)));
            } catch (RuntimeException bad) {
                rows.add(new Row(null, id, null, reason(bad)));
            }
        }
        return rows;
    }

    /** Marks rows whose id cannot be read dead by their raw key, fenced by the owner, and sorts the rest. */
    private ClaimResult settleRows(Connection c, List<Row> rows, String owner) throws SQLException {
        if (rows.isEmpty()) {
            return ClaimResult.EMPTY;
        }
        List<ClaimedEvent> events = new ArrayList<>(rows.size());
        Map<UUID, String> unreadable = new HashMap<>();
        List<String> quarantined = new ArrayList<>();
        for (Row row : rows) {
            if (row.event() != null) {
                events.add(row.event());
            } else if (row.id() != null) {
                unreadable.put(row.id(), "unreadable row: " + row.problem());
            } else {
                String reason = "unreadable row: " + row.problem();
                if (row.rawKey() != null) {
                    try (PreparedStatement ps = c.prepareStatement(quarantineSql)) {
                        ps.setString(1, reason);
                        ps.setString(2, row.rawKey());
                        ps.setString(3, owner);
                        ps.executeUpdate();
                    }
                }
                quarantined.add(table.columns().id() + " '" + LogText.escape(row.rawKey(), 80) + "': " + reason);
            }
        }
        events.sort(Comparator.comparing(ClaimedEvent::createdAt).thenComparing(ClaimedEvent::id));
        return new ClaimResult(events, unreadable, quarantined);
    }

    /** Why a row could not be read, from an exception of txoutbox's reading code. */
    private static String reason(RuntimeException bad) {
        if (bad instanceof IllegalArgumentException && bad.getMessage() != null) {
            return bad.getMessage();
        }
        return bad.getClass().getSimpleName()
                + (bad.getMessage() == null ? "" : ": " + LogText.escape(bad.getMessage(), 200));
    }

    private ClaimedEvent readClaimed(UUID id, ResultSet rs) throws SQLException {
        OutboxTable.Columns c = table.columns();
        String aggregateType = required(rs.getString(2), c.aggregateType());
        String aggregateId = required(rs.getString(3), c.aggregateId());
        String eventType = required(rs.getString(4), c.eventType());
        int version = rs.getInt(5);
        required(rs.wasNull() ? null : version, "event_version");
        byte[] payload = required(rs.getBytes(6), c.payload());
        String contentType = required(rs.getString(7), "content_type");
        Map<String, String> headers = HeadersJson.read(rs.getString(8));
        String tenant = rs.getString(9);
        String destination = rs.getString(10);
        Instant created = bind.getTime(rs, 11);
        int attempt = rs.getInt(12);
        required(rs.wasNull() ? null : attempt, "attempts");
        int maxAttempts = rs.getInt(13);
        boolean noMax = rs.wasNull();
        ClaimedEvent event = new ClaimedEvent(
                id,
                aggregateType,
                aggregateId,
                eventType,
                version,
                payload,
                contentType,
                headers,
                tenant,
                destination,
                created == null ? Instant.EPOCH : created,
                attempt,
                noMax ? null : maxAttempts);
        checkRow(event);
        return event;
    }

    private static <T> T required(T value, String column) {
        if (value == null) {
            throw new IllegalArgumentException("column '" + column + "' is NULL; txoutbox needs a value");
        }
        return value;
    }

    /**
     * A row written by another program passes the same shape rules as an append (required text present
     * and not blank, lengths, characters, version, header bounds, attempt budget), so a broker never
     * receives what txoutbox itself would have refused; a row that breaks one goes dead naming the rule.
     * The payload is relayed as it is: the relay does not parse payloads.
     */
    private static void checkRow(ClaimedEvent e) {
        if (e.attempt() < 1) {
            throw new IllegalArgumentException("attempts is negative (" + (e.attempt() - 1) + ")");
        }
        try {
            OutboxEvent.builder(e.eventType())
                    .id(e.id())
                    .aggregate(e.aggregateType(), e.aggregateId())
                    .version(e.eventVersion())
                    .payload(EMPTY, e.contentType())
                    .tenant(e.tenantId())
                    .destination(e.destination())
                    .headers(e.headers())
                    .maxAttempts(e.maxAttempts())
                    .build();
        } catch (io.txoutbox.OutboxValidationException invalid) {
            throw new IllegalArgumentException(invalid.getMessage(), invalid);
        }
    }

    @Override
    public int extendLease(String owner, java.util.Collection<UUID> ids, Duration lease) {
        if (ids.isEmpty()) {
            return 0;
        }
        String sql = extendSql.replace("{ids}", Binder.placeholders(ids.size()));
        return withConnection("extend lease", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, lease.toMillis());
                ps.setString(2, owner);
                int i = 3;
                for (UUID id : ids) {
                    bind.setId(ps, i++, id);
                }
                return ps.executeUpdate();
            }
        });
    }

    private static final byte[] EMPTY = new byte[0];

    @Override
    public Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished) {
        if (completions.isEmpty()) {
            return Set.of();
        }
        String oneStatement = retainPublished ? completeRetainSql : completeDeleteSql;
        if (oneStatement != null) {
            return withConnection("complete", c -> completeInOneStatement(c, oneStatement, owner, completions, now));
        }
        return inTransaction("complete", c -> completeStepByStep(c, owner, completions, now, retainPublished));
    }

    private Set<UUID> completeInOneStatement(
            Connection c, String sql, String owner, List<Completion> completions, Instant now) throws SQLException {
        int n = completions.size();
        UUID[] ids = new UUID[n];
        String[] states = new String[n];
        String[] times = new String[n];
        String[] errors = new String[n];
        for (int i = 0; i < n; i++) {
            Completion done = completions.get(i);
            ids[i] = done.id();
            states[i] = state(done.outcome());
            times[i] = done.availableAt() == null ? null : done.availableAt().toString();
            errors[i] = truncate(done.error());
        }
        Set<UUID> marked = new HashSet<>(n * 2);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("uuid", ids));
            ps.setArray(2, c.createArrayOf("varchar", states));
            ps.setArray(3, c.createArrayOf("text", times));
            ps.setArray(4, c.createArrayOf("text", errors));
            if (sql == completeRetainSql) {
                ps.setString(5, now.toString());
                ps.setString(6, owner);
            } else {
                ps.setString(5, owner);
                ps.setString(6, owner);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    marked.add(bind.getId(rs, 1));
                }
            }
        }
        return marked;
    }

    /**
     * Where one statement cannot mark a batch: lock the rows this owner still holds, then delete (or
     * keep) the published ones with one statement and update the others one by one, in one transaction.
     */
    private Set<UUID> completeStepByStep(
            Connection c, String owner, List<Completion> completions, Instant now, boolean retainPublished)
            throws SQLException {
        Set<UUID> owned = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(
                render("SELECT {id} FROM {table} WHERE {id} IN ({ids})" + " AND lease_owner = ? FOR UPDATE")
                        .replace("{ids}", Binder.placeholders(completions.size())))) {
            int i = 1;
            for (Completion done : completions) {
                bind.setId(ps, i++, done.id());
            }
            ps.setString(i, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    owned.add(bind.getId(rs, 1));
                }
            }
        }
        List<UUID> published = new ArrayList<>();
        List<Completion> others = new ArrayList<>();
        for (Completion done : completions) {
            if (!owned.contains(done.id())) {
                continue;
            }
            if (done.outcome() == Outcome.PUBLISHED) {
                published.add(done.id());
            } else {
                others.add(done);
            }
        }
        if (!published.isEmpty()) {
            String sql = retainPublished
                    ? "UPDATE {table} SET status = 'published', published_at = ?, lease_owner = NULL,"
                            + " lease_expires_at = NULL WHERE {id} IN ({ids})"
                    : "DELETE FROM {table} WHERE {id} IN ({ids})";
            try (PreparedStatement ps =
                    c.prepareStatement(render(sql).replace("{ids}", Binder.placeholders(published.size())))) {
                int i = 1;
                if (retainPublished) {
                    bind.setTime(ps, i++, now);
                }
                for (UUID id : published) {
                    bind.setId(ps, i++, id);
                }
                ps.executeUpdate();
            }
        }
        if (!others.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(render("UPDATE {table} SET status = ?,"
                    + " available_at = COALESCE(?, available_at), last_error = ?, lease_owner = NULL,"
                    + " lease_expires_at = NULL WHERE {id} = ?"))) {
                for (Completion done : others) {
                    ps.setString(1, state(done.outcome()));
                    if (done.availableAt() == null) {
                        ps.setNull(2, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                    } else {
                        bind.setTime(ps, 2, done.availableAt());
                    }
                    ps.setString(3, truncate(done.error()));
                    bind.setId(ps, 4, done.id());
                    ps.executeUpdate();
                }
            }
        }
        return owned;
    }

    private static String state(Outcome outcome) {
        return switch (outcome) {
            case PUBLISHED -> "published";
            case RETRY -> "pending";
            case DEAD -> "dead";
        };
    }

    @Override
    public int releaseLeases(String owner) {
        return withConnection("release leases", c -> {
            try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
                ps.setString(1, owner);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return withConnection("next due", c -> {
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(nextDueSql)) {
                rs.next();
                return Optional.ofNullable(bind.getTime(rs, 1));
            }
        });
    }

    @Override
    public OutboxStats stats(Instant now) {
        return withConnection("stats", c -> {
            long pending = 0;
            long inFlight = 0;
            long retrying = 0;
            long dead = 0;
            long published = 0;
            Instant oldest = null;
            Map<String, TypeStats> byType = new TreeMap<>();
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(statsSql)) {
                while (rs.next()) {
                    TypeStats t =
                            new TypeStats(rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6));
                    byType.put(rs.getString(1), t);
                    pending += t.pending();
                    inFlight += t.inFlight();
                    retrying += t.retrying();
                    dead += t.dead();
                    published += t.published();
                    Instant typeOldest = bind.getTime(rs, 7);
                    if (typeOldest != null && (oldest == null || typeOldest.isBefore(oldest))) {
                        oldest = typeOldest;
                    }
                }
            }
            long blockedAggregates = 0;
            long blockedEvents = 0;
            if (ordered == DeadHeadPolicy.BLOCK && dead > 0) {
                blockedAggregates = count(
                        c,
                        "SELECT count(*) FROM (SELECT DISTINCT d.{aggregate_type}, d.{aggregate_id}"
                                + " FROM {table} d WHERE d.status = 'dead' AND EXISTS (SELECT 1 FROM {table} p"
                                + " WHERE p.{aggregate_type} = d.{aggregate_type} AND p.{aggregate_id} = d.{aggregate_id}"
                                + " AND p.status = 'pending' AND p.seq > d.seq)) blocked");
                blockedEvents = count(
                        c,
                        "SELECT count(*) FROM {table} p WHERE p.status = 'pending' AND EXISTS"
                                + " (SELECT 1 FROM {table} d WHERE d.{aggregate_type} = p.{aggregate_type}"
                                + " AND d.{aggregate_id} = p.{aggregate_id} AND d.status = 'dead' AND d.seq < p.seq)");
            }
            Duration age = oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
            return new OutboxStats(
                    pending,
                    inFlight,
                    retrying,
                    dead,
                    published,
                    age,
                    byType,
                    blockedAggregates,
                    blockedEvents,
                    changeDataCapture);
        });
    }

    private long count(Connection c, String template) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(render(template))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public List<DeadEvent> listDead(DeadQuery query) {
        String heldBack = ordered == DeadHeadPolicy.BLOCK
                ? "(SELECT count(*) FROM {table} p WHERE p.{aggregate_type} = d.{aggregate_type}"
                        + " AND p.{aggregate_id} = d.{aggregate_id} AND p.status = 'pending' AND p.seq > d.seq)"
                : "0";
        StringBuilder sql = new StringBuilder(render("SELECT d.{id}, d.{aggregate_type}, d.{aggregate_id},"
                + " d.{event_type}, d.event_version, d.tenant_id, d.attempts, d.last_error, d.created_at, " + heldBack
                + " FROM {table} d WHERE d.status = 'dead'"));
        if (query.eventType() != null) {
            sql.append(render(" AND d.{event_type} = ?"));
        }
        if (query.after() != null) {
            sql.append(render(" AND d.{id} > ?"));
        }
        sql.append(render(" ORDER BY d.{id} LIMIT ?"));
        return withConnection("list dead", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int i = 1;
                if (query.eventType() != null) {
                    ps.setString(i++, query.eventType());
                }
                if (query.after() != null) {
                    bind.setId(ps, i++, query.after());
                }
                ps.setInt(i, query.limit());
                List<DeadEvent> page = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID id;
                        try {
                            id = bind.getId(rs, 1);
                        } catch (IllegalArgumentException notAUuid) {
                            // A row quarantined by its raw key: counted in stats, deletable by type.
                            log.warn(
                                    "txoutbox: dead row with {} '{}' on table {} is not listed: its id is not a UUID",
                                    table.columns().id(),
                                    LogText.escape(rs.getString(1), 80),
                                    table());
                            continue;
                        }
                        page.add(new DeadEvent(
                                id,
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getInt(5),
                                rs.getString(6),
                                rs.getInt(7),
                                rs.getString(8),
                                bind.getTime(rs, 9),
                                rs.getLong(10)));
                    }
                }
                return page;
            }
        });
    }

    @Override
    public int revive(DeadSelector selector, Instant now) {
        String sql = render("UPDATE {table} SET status = 'pending', attempts = 0, available_at = ?,"
                        + " lease_owner = NULL, lease_expires_at = NULL WHERE status = 'dead'")
                + selectorSql(selector);
        int revived = withConnection("revive", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bind.setTime(ps, 1, now);
                bindSelector(ps, 2, selector);
                return ps.executeUpdate();
            }
        });
        if (revived > 0) {
            signalCommitted();
        }
        return revived;
    }

    @Override
    public int deleteDead(DeadSelector selector) {
        String sql = render("DELETE FROM {table} WHERE status = 'dead'") + selectorSql(selector);
        return withConnection("delete dead", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bindSelector(ps, 1, selector);
                return ps.executeUpdate();
            }
        });
    }

    private String selectorSql(DeadSelector selector) {
        StringBuilder sql = new StringBuilder();
        if (selector.ids() != null) {
            sql.append(
                    selector.ids().isEmpty()
                            ? " AND 1 = 0"
                            : render(" AND {id} IN ("
                                    + Binder.placeholders(selector.ids().size()) + ")"));
        }
        if (selector.eventType() != null) {
            sql.append(render(" AND {event_type} = ?"));
        }
        return sql.toString();
    }

    private void bindSelector(PreparedStatement ps, int first, DeadSelector selector) throws SQLException {
        int i = first;
        if (selector.ids() != null) {
            for (UUID id : selector.ids()) {
                bind.setId(ps, i++, id);
            }
        }
        if (selector.eventType() != null) {
            ps.setString(i, selector.eventType());
        }
    }

    @Override
    public int purgePublished(Instant olderThan, int batchSize) {
        String sql = render(dialect.purge());
        int total = 0;
        while (true) {
            int deleted = withConnection("purge", c -> {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    bind.setTime(ps, 1, olderThan);
                    ps.setInt(2, batchSize);
                    return ps.executeUpdate();
                }
            });
            total += deleted;
            if (deleted < batchSize) {
                return total;
            }
        }
    }

    @Override
    public void createSchema() {
        String script = outboxDdl(table, dialect);
        boolean trigger = wakeups.foreignWriterTrigger() && dialect.supportsListen();
        withConnection("create schema", c -> {
            runScript(c, script);
            if (trigger) {
                runScript(c, foreignWriterWakeupDdl(table));
            }
            return null;
        });
        log.info(
                "txoutbox: outbox table {} is ready ({}{})",
                table(),
                dialect.name(),
                trigger ? ", with wake-ups for writers that are not txoutbox" : "");
    }

    /**
     * Runs a DDL script made of statements separated by a semicolon at the end of a line followed by a
     * blank line, in one transaction where the database allows it.
     */
    static void runScript(Connection c, String script) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            for (String statement : script.split(";\\s*\\n\\s*\\n")) {
                String sql = statement.strip();
                if (sql.endsWith(";")) {
                    sql = sql.substring(0, sql.length() - 1);
                }
                if (!sql.lines().allMatch(l -> l.isBlank() || l.strip().startsWith("--"))) {
                    st.execute(sql);
                }
            }
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    @Override
    public void validateSchema() {
        Map<String, String> actual = columns(table);
        if (actual.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not exist. Create it with Outbox.Builder"
                            + ".createSchemaIfMissing(true), Outbox#createSchema(), or the migration"
                            + " db/migration/txoutbox/" + dialect.name() + "/V1__txoutbox_outbox.sql"
                            + " (txoutbox.table)");
        }
        Map<String, ColumnKind> expected = new LinkedHashMap<>();
        OutboxTable.Columns c = table.columns();
        expected.put(c.id(), ColumnKind.UUID);
        expected.put("seq", ColumnKind.INTEGER);
        expected.put(c.aggregateType(), ColumnKind.TEXT);
        expected.put(c.aggregateId(), ColumnKind.TEXT);
        expected.put(c.eventType(), ColumnKind.TEXT);
        expected.put(c.payload(), ColumnKind.BYTES);
        expected.putAll(FIXED_COLUMNS);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, ColumnKind> column : expected.entrySet()) {
            String type = actual.get(column.getKey());
            Set<String> allowed = dialect.types().get(column.getValue());
            if (type == null) {
                problems.add("column '" + column.getKey() + "' is missing");
            } else if (!allowed.contains(type)) {
                problems.add("column '" + column.getKey() + "' is " + type + "; expected "
                        + new java.util.TreeSet<>(allowed));
            }
        }
        if (!problems.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not have the expected shape: "
                            + String.join("; ", problems) + ". Compare it with db/migration/txoutbox/"
                            + dialect.name() + "/V1__txoutbox_outbox.sql, or check the column mapping"
                            + " (txoutbox.columns.*)");
        }
        checkNullability();
        if (dialect.supportsListen()) {
            checkWakeupTriggers();
        }
    }

    /**
     * Warns about the trigger of txoutbox 0.1 that notified from every appending transaction (it halves
     * the commit rate of concurrent appenders), and about a missing trigger for writers that are not
     * txoutbox when the outbox asks for one. Both are warnings: relays still work, only slower or later.
     */
    private void checkWakeupTriggers() {
        String legacy = PgWakeups.legacyTriggerName(table);
        String wake = PgWakeups.triggerName(table);
        boolean hasLegacy = triggerExists(legacy);
        if (hasLegacy) {
            log.warn(
                    "txoutbox: the outbox table {} still has the trigger {}, which notifies relays from every"
                            + " appending transaction: PostgreSQL then serializes those commits behind its"
                            + " notification lock (about half the commit rate of 8 concurrent appenders). Relays do"
                            + " not need it any more: appenders wake them after commit (Outbox#committed). Drop it"
                            + " with the migration db/migration/txoutbox/postgresql/V3__txoutbox_outbox_no_commit_notify.sql,"
                            + " Outbox#createSchema(), or: DROP TRIGGER {} ON {}; DROP FUNCTION {}_notify();",
                    table(),
                    legacy,
                    legacy,
                    table(),
                    table());
        }
        if (wakeups.foreignWriterTrigger() && !triggerExists(wake)) {
            log.warn(
                    "txoutbox: the outbox is built with foreignWriterWakeups, but the table {} has no trigger {}:"
                            + " rows inserted by other programs wait for the relays' poll. Create it with"
                            + " Outbox#createSchema(), the migration in"
                            + " db/migration/txoutbox/postgresql-foreign-writers/ (default table), or the script"
                            + " of Dialect.POSTGRESQL.foreignWriterWakeupDdl",
                    table(),
                    wake);
        }
    }

    private boolean triggerExists(String name) {
        return withConnection("schema check", c -> {
            try (PreparedStatement ps = c.prepareStatement(PgWakeups.TRIGGER_EXISTS)) {
                ps.setString(1, table.qualifiedName());
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) > 0;
                }
            }
        });
    }

    /**
     * A table made by hand can have the right types and still allow NULL where txoutbox needs a value;
     * such a row would be claimed and then fail in the relay, or (a NULL status or due time) never be
     * claimed at all. So the start-up check also names every required column that allows NULL, with
     * the statement that fixes it.
     */
    void checkNullability() {
        OutboxTable.Columns c = table.columns();
        List<String> required = List.of(
                c.id(),
                "seq",
                c.aggregateType(),
                c.aggregateId(),
                c.eventType(),
                "event_version",
                c.payload(),
                "content_type",
                "headers",
                "created_at",
                "available_at",
                "status",
                "attempts");
        Map<String, String> nullable = withConnection("schema check", conn -> {
            Map<String, String> columns = new LinkedHashMap<>();
            try (PreparedStatement ps = conn.prepareStatement(dialect.columnsQuery())) {
                ps.setString(1, table.schema());
                ps.setString(2, table.name());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        columns.put(
                                rs.getString(1).toLowerCase(Locale.ROOT),
                                String.valueOf(rs.getString(3)).trim().toUpperCase(Locale.ROOT));
                    }
                }
            }
            return columns;
        });
        List<String> problems = new ArrayList<>();
        for (String column : required) {
            if ("YES".equals(nullable.get(column.toLowerCase(Locale.ROOT)))) {
                String fix = dialect == SqlDialect.MARIADB
                        ? "ALTER TABLE " + table() + " MODIFY " + column + " <its type> NOT NULL"
                        : "ALTER TABLE " + table() + " ALTER COLUMN " + column + " SET NOT NULL";
                problems.add("column '" + column + "' allows NULL; txoutbox needs a value in every row (" + fix + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not have the expected shape: "
                            + String.join("; ", problems) + ". Compare it with db/migration/txoutbox/"
                            + dialect.name() + "/V1__txoutbox_outbox.sql");
        }
    }

    /** @return the table's columns, lower-cased, with their catalogue type names; empty if it is missing */
    Map<String, String> columns(OutboxTable which) {
        return withConnection("schema check", c -> {
            Map<String, String> columns = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement(dialect.columnsQuery())) {
                ps.setString(1, which.schema());
                ps.setString(2, which.name());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        columns.put(
                                rs.getString(1).toLowerCase(Locale.ROOT),
                                rs.getString(2).toLowerCase(Locale.ROOT));
                    }
                }
            }
            return columns;
        });
    }

    private static final Map<String, ColumnKind> FIXED_COLUMNS = fixedColumns();

    private static Map<String, ColumnKind> fixedColumns() {
        Map<String, ColumnKind> m = new LinkedHashMap<>();
        m.put("event_version", ColumnKind.INTEGER);
        m.put("content_type", ColumnKind.TEXT);
        m.put("headers", ColumnKind.JSON);
        m.put("tenant_id", ColumnKind.TEXT);
        m.put("destination", ColumnKind.TEXT);
        m.put("created_at", ColumnKind.TIME);
        m.put("available_at", ColumnKind.TIME);
        m.put("status", ColumnKind.TEXT);
        m.put("attempts", ColumnKind.INTEGER);
        m.put("max_attempts", ColumnKind.INTEGER);
        m.put("lease_owner", ColumnKind.TEXT);
        m.put("lease_expires_at", ColumnKind.TIME);
        m.put("last_error", ColumnKind.TEXT);
        m.put("published_at", ColumnKind.TIME);
        return Map.copyOf(m);
    }

    @Override
    public WakeSubscription subscribe(
            Runnable wake, boolean listen, ThreadFactory threadFactory, Consumer<Throwable> onError) {
        subscribers.add(wake);
        PgListener listener = null;
        if (listen && dialect.supportsListen()) {
            listener = PgListener.startIfAvailable(dataSource, table.channel(), wake, threadFactory, onError);
        }
        PgListener started = listener;
        return new WakeSubscription() {
            @Override
            public void idle() {
                if (started != null) {
                    started.idle();
                }
            }

            @Override
            public void busy() {
                if (started != null) {
                    started.busy();
                }
            }

            @Override
            public void close() {
                subscribers.remove(wake);
                if (started != null) {
                    started.close();
                }
            }
        };
    }

    @Override
    public void signalCommitted() {
        for (Runnable wake : subscribers) {
            wake.run();
        }
        if (notifier != null) {
            notifier.request();
        }
    }

    @Override
    public WakeupCounters wakeupCounters() {
        return notifier == null
                ? WakeupCounters.NONE
                : new WakeupCounters(notifier.sent(), notifier.requested(), notifier.failures());
    }

    /** Stops the notifier and gives its connection back; idempotent. Never closes the data source. */
    @Override
    public void close() {
        if (notifier != null) {
            notifier.close();
        }
    }

    /** A unit of work on one autocommit connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Borrows a connection, runs the work in autocommit mode and gives the connection back as it found
     * it; translates the driver's exceptions.
     */
    <T> T withConnection(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            if (!auto) {
                c.setAutoCommit(true);
            }
            try {
                return work.run(c);
            } finally {
                if (!auto) {
                    c.setAutoCommit(false);
                }
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of(operation, table(), e);
        }
    }

    /**
     * Runs the work in one short transaction on a borrowed connection, at READ COMMITTED; rolls back if
     * it fails. READ COMMITTED matters on MariaDB and MySQL: at their default REPEATABLE READ a locking
     * read also locks the gaps of the index range it scanned, which blocks (and deadlocks) the inserts
     * of producers appending at the same time.
     */
    <T> T inTransaction(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            if (auto) {
                c.setAutoCommit(false);
            }
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            } finally {
                if (auto) {
                    c.setAutoCommit(true);
                }
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    c.setTransactionIsolation(isolation);
                }
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of(operation, table(), e);
        }
    }

    private static String truncate(String error) {
        if (error == null || error.length() <= MAX_ERROR_CHARS) {
            return error;
        }
        return error.substring(0, MAX_ERROR_CHARS - 1) + "…";
    }
}
