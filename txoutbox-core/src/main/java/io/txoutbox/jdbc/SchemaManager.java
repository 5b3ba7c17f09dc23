package io.txoutbox.jdbc;

import io.txoutbox.ClaimFairness;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.jdbc.SqlDialect.ColumnKind;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox table's schema: created from the dialect's DDL (with the optional foreign-writer trigger),
 * and checked at start-up against what this version needs (columns, types, NOT NULL, and on PostgreSQL
 * the wake-up triggers), failing with what is missing and the fix.
 */
final class SchemaManager {
    private static final Logger log = LoggerFactory.getLogger(SchemaManager.class);

    /** The columns whose names are not mappable, and their kinds. */
    private static final Map<String, ColumnKind> FIXED_COLUMNS = fixedColumns();

    private final OutboxSql sql;
    private final Jdbc jdbc;
    private final WakeupOptions wakeups;

    SchemaManager(OutboxSql sql, Jdbc jdbc, WakeupOptions wakeups) {
        this.sql = sql;
        this.jdbc = jdbc;
        this.wakeups = wakeups;
    }

    /** @return the outbox table's DDL for a table and dialect, as the migrations ship it */
    static String outboxDdl(OutboxTable table, SqlDialect dialect) {
        return new OutboxSql(dialect, table, null).render(dialect.outboxDdl());
    }

    /** @return the PostgreSQL trigger that wakes idle relays for writers that are not txoutbox */
    static String foreignWriterWakeupDdl(OutboxTable table) {
        SqlDialect pg = PostgresDialect.INSTANCE;
        return PgWakeups.render(new OutboxSql(pg, table, null).render(pg.foreignWriterTrigger()), table);
    }

    /** @return the index that claims fair across a column read, for a table and dialect */
    static String fairClaimsDdl(OutboxTable table, SqlDialect dialect, ClaimFairness fairness) {
        return new OutboxSql(dialect, table, null, fairness).render(dialect.fairClaimsDdl());
    }

    /** See {@link io.txoutbox.spi.OutboxStore#createSchema}. */
    void createSchema() {
        SqlDialect dialect = sql.dialect();
        boolean trigger = wakeups.foreignWriterTrigger() && dialect.supportsListen();
        String script = outboxDdl(sql.table(), dialect);
        if (sql.fair() != null) {
            script = script + "\n\n" + fairClaimsDdl(sql.table(), dialect, sql.fair());
        }
        if (trigger) {
            jdbc.scripts("create schema", script, foreignWriterWakeupDdl(sql.table()));
        } else {
            jdbc.scripts("create schema", script);
        }
        log.info(
                "txoutbox: outbox table {} is ready ({}{})",
                table(),
                dialect.name(),
                trigger ? ", with wake-ups for writers that are not txoutbox" : "");
    }

    /** See {@link io.txoutbox.spi.OutboxStore#validateSchema}. */
    void validateSchema() {
        Map<String, Column> actual = catalogue();
        String migration = "db/migration/txoutbox/" + sql.dialect().name() + "/V1__txoutbox_outbox.sql";
        if (actual.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not exist. Create it with Outbox.Builder"
                            + ".createSchemaIfMissing(true), Outbox#createSchema(), or the migration " + migration
                            + " (txoutbox.table)");
        }
        OutboxTable.Columns c = sql.table().columns();
        Map<String, ColumnKind> expected = new LinkedHashMap<>();
        expected.put(c.id(), ColumnKind.UUID);
        expected.put("seq", ColumnKind.INTEGER);
        expected.put(c.aggregateType(), ColumnKind.TEXT);
        expected.put(c.aggregateId(), ColumnKind.TEXT);
        expected.put(c.eventType(), ColumnKind.TEXT);
        expected.put(c.payload(), ColumnKind.BYTES);
        expected.putAll(FIXED_COLUMNS);
        Map<ColumnKind, Set<String>> types = sql.dialect().types();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, ColumnKind> column : expected.entrySet()) {
            Column found = actual.get(column.getKey());
            Set<String> allowed = types.get(column.getValue());
            if (found == null) {
                problems.add("column '" + column.getKey() + "' is missing");
            } else if (!allowed.contains(found.type())) {
                problems.add(
                        "column '" + column.getKey() + "' is " + found.type() + "; expected " + new TreeSet<>(allowed));
            }
        }
        if (!problems.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not have the expected shape: "
                            + String.join("; ", problems) + ". Compare it with " + migration
                            + ", or check the column mapping (txoutbox.columns.*)");
        }
        checkNullability(actual, migration);
        if (sql.fair() != null) {
            checkFairClaimsIndex();
        }
        if (sql.dialect().supportsListen()) {
            checkWakeupTriggers();
        }
    }

    /**
     * A table made by hand can have the right types and still allow NULL where txoutbox needs a value;
     * such a row would be claimed and then fail in the relay, or (a NULL status or due time) never be
     * claimed at all. So the start-up check also names every required column that allows NULL, with
     * the statement that fixes it.
     */
    private void checkNullability(Map<String, Column> actual, String migration) {
        OutboxTable.Columns c = sql.table().columns();
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
        List<String> problems = new ArrayList<>();
        for (String column : required) {
            Column found = actual.get(column.toLowerCase(Locale.ROOT));
            if (found != null && found.nullable()) {
                problems.add("column '" + column + "' allows NULL; txoutbox needs a value in every row ("
                        + sql.dialect().notNullFix(table(), column) + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' does not have the expected shape: "
                            + String.join("; ", problems) + ". Compare it with " + migration);
        }
    }

    /**
     * Warns about the trigger of txoutbox 0.1 that notified from every appending transaction (it halves
     * the commit rate of concurrent appenders), and about a missing trigger for writers that are not
     * txoutbox when the outbox asks for one. Both are warnings: relays still work, only slower or later.
     */
    private void checkWakeupTriggers() {
        OutboxTable table = sql.table();
        String legacy = PgWakeups.legacyTriggerName(table);
        String wake = PgWakeups.triggerName(table);
        if (triggerExists(legacy)) {
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

    /**
     * Without its index a fair claim reads every pending row of the table for every key, so an outbox built
     * with fair claims refuses a table that lacks it, with the statement that creates it.
     */
    private void checkFairClaimsIndex() {
        String column = sql.fair().column();
        long n = jdbc.autocommit("schema check", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.dialect().fairClaimsIndexExists())) {
                ps.setString(1, sql.table().schema());
                ps.setString(2, sql.table().name());
                ps.setString(3, "%(" + column + ", available_at, seq)%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong("n");
                }
            }
        });
        if (n == 0) {
            throw new OutboxSchemaException(
                    table(),
                    "txoutbox: the outbox table '" + table() + "' has no index on (" + column
                            + ", available_at, seq), which Outbox.Builder.fairClaims(" + sql.fair()
                            + ") reads. Create it with Outbox#createSchema(), the migration in"
                            + " db/migration/txoutbox/postgresql-fair-claims/ (default table), or: "
                            + fairClaimsDdl(sql.table(), sql.dialect(), sql.fair())
                                    .lines()
                                    .filter(line -> !line.startsWith("--"))
                                    .reduce("", String::concat)
                                    .trim());
        }
    }

    private boolean triggerExists(String name) {
        return jdbc.autocommit("schema check", c -> {
            try (PreparedStatement ps = c.prepareStatement(PgWakeups.TRIGGER_EXISTS)) {
                ps.setString(1, table());
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong("n") > 0;
                }
            }
        });
    }

    /** One column as the catalogue describes it: its type name (lower case) and whether it allows NULL. */
    private record Column(String type, boolean nullable) {}

    /** @return the table's columns by lower-cased name; empty if the table is missing */
    private Map<String, Column> catalogue() {
        return jdbc.autocommit("schema check", c -> {
            Map<String, Column> columns = new LinkedHashMap<>();
            try (PreparedStatement ps = c.prepareStatement(sql.dialect().columns())) {
                ps.setString(1, sql.table().schema());
                ps.setString(2, sql.table().name());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        columns.put(
                                rs.getString("name").toLowerCase(Locale.ROOT),
                                new Column(
                                        rs.getString("type").toLowerCase(Locale.ROOT),
                                        "YES"
                                                .equals(String.valueOf(rs.getString("nullable"))
                                                        .trim()
                                                        .toUpperCase(Locale.ROOT))));
                    }
                }
            }
            return columns;
        });
    }

    private String table() {
        return sql.table().qualifiedName();
    }

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
        return java.util.Collections.unmodifiableMap(m);
    }
}
