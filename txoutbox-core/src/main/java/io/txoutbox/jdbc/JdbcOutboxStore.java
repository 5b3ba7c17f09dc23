package io.txoutbox.jdbc;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxStats.TypeStats;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
 * The JDBC outbox store: every statement of one {@link Dialect}, rendered once for one {@link
 * OutboxTable}. Thread-safe; one per table and data source.
 */
public final class JdbcOutboxStore implements OutboxStore {
    private static final Logger log = LoggerFactory.getLogger(JdbcOutboxStore.class);

    /** Longest error text kept in {@code last_error}. */
    static final int MAX_ERROR_CHARS = 4_000;

    /** Every column this version reads or writes, with the type families it accepts. */
    private static final Map<String, Set<String>> FIXED_COLUMNS = fixedColumns();

    private final DataSource dataSource;
    private final OutboxTable table;
    private final Dialect dialect;
    private final String insertSql;
    private final String claimSql;
    private final String completeDeleteSql;
    private final String completeRetainSql;
    private final String releaseSql;
    private final String nextDueSql;
    private final String statsSql;
    private final List<Runnable> subscribers = new CopyOnWriteArrayList<>();

    private JdbcOutboxStore(DataSource dataSource, OutboxTable table, Dialect dialect) {
        this.dataSource = dataSource;
        this.table = table;
        this.dialect = dialect;
        this.insertSql = render("INSERT INTO {table} ({id}, {aggregate_type}, {aggregate_id}, {event_type},"
                + " event_version, {payload}, content_type, headers, tenant_id, destination, created_at,"
                + " available_at, max_attempts) VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?)");
        this.claimSql = render(dialect.claim());
        this.completeDeleteSql = render(dialect.completeDelete());
        this.completeRetainSql = render(dialect.completeRetain());
        this.releaseSql = render(dialect.release());
        this.nextDueSql = render(dialect.nextDue());
        this.statsSql = render(dialect.stats());
    }

    /**
     * @param dataSource where the table lives; the store borrows a connection per operation (and one for
     *     as long as a relay listens, on PostgreSQL)
     * @param table the table and its column names
     * @param dialect the database's SQL
     * @return the store
     */
    public static JdbcOutboxStore create(DataSource dataSource, OutboxTable table, Dialect dialect) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource is required");
        }
        return new JdbcOutboxStore(dataSource, table, dialect);
    }

    /** @return the dialect this store speaks */
    public Dialect dialect() {
        return dialect;
    }

    /** @return the table and its column names */
    public OutboxTable outboxTable() {
        return table;
    }

    @Override
    public String table() {
        return table.qualifiedName();
    }

    /**
     * Renders a statement template for this table.
     *
     * @param template a template with the tokens {@link Dialect} lists
     * @return the SQL
     */
    public String render(String template) {
        OutboxTable.Columns c = table.columns();
        return template.replace("{table}", table.qualifiedName())
                .replace("{name}", table.derivedPrefix())
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
                ps.setObject(1, e.id());
                ps.setString(2, e.aggregateType());
                ps.setString(3, e.aggregateId());
                ps.setString(4, e.eventType());
                ps.setInt(5, e.eventVersion());
                ps.setBytes(6, e.payload());
                ps.setString(7, e.contentType());
                ps.setString(8, HeadersJson.write(e.headers()));
                ps.setString(9, e.tenantId());
                ps.setString(10, e.destination());
                ps.setObject(11, odt(now));
                ps.setObject(12, odt(availableAt));
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
        } catch (SQLException e) {
            throw SqlExceptions.translate("append", table(), e);
        }
    }

    @Override
    public ClaimResult claim(String owner, int limit, Duration lease, Instant now) {
        return withConnection("claim", c -> {
            List<ClaimedEvent> events = new ArrayList<>(limit);
            Map<UUID, String> unreadable = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(claimSql)) {
                ps.setObject(1, odt(now));
                ps.setInt(2, limit);
                ps.setString(3, owner);
                ps.setLong(4, lease.toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        try {
                            events.add(readClaimed(id, rs));
                        } catch (IllegalArgumentException | SQLException bad) {
                            unreadable.put(id, "unreadable row: " + bad.getMessage());
                        }
                    }
                }
            }
            events.sort(Comparator.comparing(ClaimedEvent::createdAt).thenComparing(ClaimedEvent::id));
            return events.isEmpty() && unreadable.isEmpty() ? ClaimResult.EMPTY : new ClaimResult(events, unreadable);
        });
    }

    private static ClaimedEvent readClaimed(UUID id, ResultSet rs) throws SQLException {
        OffsetDateTime created = rs.getObject(11, OffsetDateTime.class);
        int maxAttempts = rs.getInt(13);
        boolean noMax = rs.wasNull();
        return new ClaimedEvent(
                id,
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getInt(5),
                rs.getBytes(6),
                rs.getString(7),
                HeadersJson.read(rs.getString(8)),
                rs.getString(9),
                rs.getString(10),
                created == null ? Instant.EPOCH : created.toInstant(),
                rs.getInt(12),
                noMax ? null : maxAttempts);
    }

    @Override
    public Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished) {
        if (completions.isEmpty()) {
            return Set.of();
        }
        return withConnection("complete", c -> {
            int n = completions.size();
            UUID[] ids = new UUID[n];
            String[] states = new String[n];
            String[] times = new String[n];
            String[] errors = new String[n];
            for (int i = 0; i < n; i++) {
                Completion done = completions.get(i);
                ids[i] = done.id();
                states[i] = switch (done.outcome()) {
                    case PUBLISHED -> "published";
                    case RETRY -> "pending";
                    case DEAD -> "dead";
                };
                times[i] =
                        done.availableAt() == null ? null : done.availableAt().toString();
                errors[i] = truncate(done.error());
            }
            Set<UUID> marked = new HashSet<>(n * 2);
            try (PreparedStatement ps = c.prepareStatement(retainPublished ? completeRetainSql : completeDeleteSql)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("varchar", states));
                ps.setArray(3, c.createArrayOf("text", times));
                ps.setArray(4, c.createArrayOf("text", errors));
                if (retainPublished) {
                    ps.setString(5, now.toString());
                    ps.setString(6, owner);
                } else {
                    ps.setString(5, owner);
                    ps.setString(6, owner);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        marked.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return marked;
        });
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
                OffsetDateTime due = rs.getObject(1, OffsetDateTime.class);
                return Optional.ofNullable(due).map(OffsetDateTime::toInstant);
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
                    OffsetDateTime typeOldest = rs.getObject(7, OffsetDateTime.class);
                    if (typeOldest != null
                            && (oldest == null || typeOldest.toInstant().isBefore(oldest))) {
                        oldest = typeOldest.toInstant();
                    }
                }
            }
            Duration age = oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
            return new OutboxStats(pending, inFlight, retrying, dead, published, age, byType);
        });
    }

    @Override
    public List<DeadEvent> listDead(DeadQuery query) {
        StringBuilder sql = new StringBuilder(render("SELECT {id}, {aggregate_type}, {aggregate_id}, {event_type},"
                + " event_version, tenant_id, attempts, last_error, created_at FROM {table} WHERE status = 'dead'"));
        if (query.eventType() != null) {
            sql.append(render(" AND {event_type} = ?"));
        }
        if (query.after() != null) {
            sql.append(render(" AND {id} > ?"));
        }
        sql.append(render(" ORDER BY {id} LIMIT ?"));
        return withConnection("list dead", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int i = 1;
                if (query.eventType() != null) {
                    ps.setString(i++, query.eventType());
                }
                if (query.after() != null) {
                    ps.setObject(i++, query.after());
                }
                ps.setInt(i, query.limit());
                List<DeadEvent> page = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        OffsetDateTime created = rs.getObject(9, OffsetDateTime.class);
                        page.add(new DeadEvent(
                                rs.getObject(1, UUID.class),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getInt(5),
                                rs.getString(6),
                                rs.getInt(7),
                                rs.getString(8),
                                created == null ? null : created.toInstant()));
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
                ps.setObject(1, odt(now));
                bindSelector(c, ps, 2, selector);
                int n = ps.executeUpdate();
                if (n > 0 && dialect.notifySql() != null) {
                    try (PreparedStatement notify = c.prepareStatement(dialect.notifySql())) {
                        notify.setString(1, table.channel());
                        notify.execute();
                    }
                }
                return n;
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
                bindSelector(c, ps, 1, selector);
                return ps.executeUpdate();
            }
        });
    }

    private String selectorSql(DeadSelector selector) {
        StringBuilder sql = new StringBuilder();
        if (selector.ids() != null) {
            sql.append(render(" AND {id} = ANY(?)"));
        }
        if (selector.eventType() != null) {
            sql.append(render(" AND {event_type} = ?"));
        }
        return sql.toString();
    }

    private static void bindSelector(Connection c, PreparedStatement ps, int first, DeadSelector selector)
            throws SQLException {
        int i = first;
        if (selector.ids() != null) {
            ps.setArray(i++, c.createArrayOf("uuid", selector.ids().toArray(new UUID[0])));
        }
        if (selector.eventType() != null) {
            ps.setString(i, selector.eventType());
        }
    }

    @Override
    public int purgePublished(Instant olderThan, int batchSize) {
        String sql = render("DELETE FROM {table} WHERE {id} IN (SELECT {id} FROM {table}"
                + " WHERE status = 'published' AND published_at < ? LIMIT ?)");
        int total = 0;
        while (true) {
            int deleted = withConnection("purge", c -> {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setObject(1, odt(olderThan));
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
        String script = render(dialect.outboxDdl());
        withConnection("create schema", c -> {
            runScript(c, script);
            return null;
        });
        log.info("txoutbox: outbox table {} is ready ({})", table(), dialect.name());
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
        Map<String, String> actual = withConnection("schema check", c -> {
            Map<String, String> columns = new LinkedHashMap<>();
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT column_name, udt_name FROM information_schema.columns"
                            + " WHERE table_schema = COALESCE(?, current_schema()) AND table_name = ?")) {
                ps.setString(1, table.schema());
                ps.setString(2, table.name());
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
        if (actual.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not exist. Create it with Outbox.Builder"
                            + ".createSchemaIfMissing(true), Outbox#createSchema(), or the migration"
                            + " db/migration/txoutbox/" + dialect.name() + "/V1__txoutbox_outbox.sql"
                            + " (txoutbox.table)");
        }
        Map<String, Set<String>> expected = new LinkedHashMap<>();
        OutboxTable.Columns c = table.columns();
        expected.put(c.id(), Set.of("uuid"));
        expected.put(c.aggregateType(), Set.of("varchar", "text"));
        expected.put(c.aggregateId(), Set.of("varchar", "text"));
        expected.put(c.eventType(), Set.of("varchar", "text"));
        expected.put(c.payload(), Set.of("bytea"));
        expected.putAll(FIXED_COLUMNS);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Set<String>> column : expected.entrySet()) {
            String type = actual.get(column.getKey());
            if (type == null) {
                problems.add("column '" + column.getKey() + "' is missing");
            } else if (!column.getValue().contains(type)) {
                problems.add("column '" + column.getKey() + "' is " + type + "; expected " + column.getValue());
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
    }

    private static Map<String, Set<String>> fixedColumns() {
        Set<String> text = Set.of("varchar", "text");
        Set<String> time = Set.of("timestamptz");
        Set<String> integer = Set.of("int4", "int8");
        Map<String, Set<String>> m = new LinkedHashMap<>();
        m.put("event_version", integer);
        m.put("content_type", text);
        m.put("headers", Set.of("jsonb"));
        m.put("tenant_id", text);
        m.put("destination", text);
        m.put("created_at", time);
        m.put("available_at", time);
        m.put("status", text);
        m.put("attempts", integer);
        m.put("max_attempts", integer);
        m.put("lease_owner", text);
        m.put("lease_expires_at", time);
        m.put("last_error", text);
        m.put("published_at", time);
        return Map.copyOf(m);
    }

    @Override
    public AutoCloseable subscribe(
            Runnable wake, boolean listen, ThreadFactory threadFactory, Consumer<Throwable> onError) {
        subscribers.add(wake);
        PgListener listener = null;
        if (listen && dialect.supportsListen()) {
            listener = PgListener.startIfAvailable(dataSource, table.channel(), wake, threadFactory, onError);
        }
        PgListener started = listener;
        return () -> {
            subscribers.remove(wake);
            if (started != null) {
                started.close();
            }
        };
    }

    @Override
    public void signalCommitted() {
        for (Runnable wake : subscribers) {
            wake.run();
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
            throw SqlExceptions.translate(operation, table(), e);
        }
    }

    static OffsetDateTime odt(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    private static String truncate(String error) {
        if (error == null || error.length() <= MAX_ERROR_CHARS) {
            return error;
        }
        return error.substring(0, MAX_ERROR_CHARS - 1) + "…";
    }
}
