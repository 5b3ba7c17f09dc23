package io.txoutbox.server.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.Redaction;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.transport.Transports;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.spi.Publisher;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code txoutbox run --check}: a dry run that changes nothing. It validates the configuration (already
 * done by {@link ConfigLoader}), builds each route's publisher with the library's builder (which checks
 * its settings) and reaches its broker without publishing, connects to each source's database and
 * checks its table's shape, and prints one line per source and per route. No relay starts, no port is
 * bound, no row is read or changed, no schema is created: with {@code create-schema: true} and no
 * table, it says what a start would create.
 */
final class ConfigCheck {
    /** How long one broker or database may take to answer a check. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private record Problem(String key, String message) {}

    private final PrintWriter out;
    private final List<Problem> problems = new ArrayList<>();

    private ConfigCheck(PrintWriter out) {
        this.out = out;
    }

    /**
     * @param config the validated configuration
     * @param out where the per-source and per-route results go
     * @return {@link TxoutboxCli#OK} when everything was reached
     * @throws ConfigException naming the key of the first problem (after every problem was printed)
     */
    static int run(ServerConfig config, PrintWriter out) {
        ConfigCheck check = new ConfigCheck(out);
        ServerConfig.Admin admin = config.admin();
        out.println("check: admin API and " + (admin.dashboard() ? "dashboard" : "no dashboard") + " on " + admin.host()
                + ":" + admin.port() + " (not bound by a check)");
        List<ServerConfig.Source> sources = config.sources();
        for (int i = 0; i < sources.size(); i++) {
            check.source(sources.get(i), "sources[" + i + "]");
        }
        out.flush();
        if (check.problems.isEmpty()) {
            out.println("txoutbox: check OK: " + sources.size() + " source(s), "
                    + sources.stream().mapToInt(s -> s.routes().size()).sum() + " route(s); nothing was changed");
            return TxoutboxCli.OK;
        }
        out.println("txoutbox: check failed: " + check.problems.size() + " problem(s); nothing was changed");
        out.flush();
        Problem first = check.problems.get(0);
        throw new ConfigException(first.key(), first.message());
    }

    private void source(ServerConfig.Source s, String key) {
        database(s, key);
        for (ServerConfig.Route route : s.routes()) {
            route(route);
        }
    }

    private void database(ServerConfig.Source s, String key) {
        String label = key + " '" + s.name() + "'";
        HikariConfig h = s.poolConfig();
        h.setPoolName("txoutbox-check-" + s.name());
        h.setMaximumPoolSize(1);
        h.setMinimumIdle(0);
        h.setReadOnly(true);
        try (HikariDataSource pool = new HikariDataSource(h)) {
            try (Connection c = pool.getConnection()) {
                c.isValid(5);
            } catch (SQLException e) {
                String what = e.getSQLState() != null && e.getSQLState().startsWith("28")
                        ? "the database refused the user or password"
                        : "cannot connect";
                fail(
                        label,
                        key + ".jdbc-url",
                        what + " (" + Redaction.redact(s.jdbcUrl()) + ", user " + s.user() + "): "
                                + Redaction.redact(e.getMessage()));
                return;
            }
            Dialect dialect;
            try {
                dialect = s.resolveDialect(pool);
            } catch (OutboxException e) {
                fail(label, key + ".dialect", e.getMessage());
                return;
            }
            Outbox.Builder b =
                    s.outboxBuilder(pool, dialect).createSchemaIfMissing(false).validateSchema(true);
            String db = "database " + Redaction.redact(s.jdbcUrl()) + " (" + dialect.name() + ")";
            try {
                b.build().close();
                ok(label, db + ", table " + s.table() + " has the expected shape");
            } catch (OutboxSchemaException e) {
                if (s.createSchema() && !tableExists(pool, s.table())) {
                    ok(
                            label,
                            db + ", table " + s.table() + " does not exist: a start with create-schema: true would"
                                    + " create it (txoutbox schema --dialect " + dialect.name() + " --table "
                                    + s.table() + " prints the DDL); the check created nothing");
                } else {
                    fail(
                            label,
                            key + ".table",
                            e.getMessage()
                                    + (s.createSchema()
                                            ? ""
                                            : " (or set create-schema: true, or run: txoutbox schema)"));
                }
            } catch (OutboxException e) {
                fail(label, key + ".table", e.getMessage());
            }
        }
    }

    private void route(ServerConfig.Route route) {
        Transports.Spec spec = route.transport();
        String label = spec.key() + " (route '" + route.name() + "', types " + route.types() + ")";
        try {
            // Built and closed at once: the library's builder checked every setting.
            Publisher p = spec.open();
            p.close();
        } catch (ConfigException e) {
            fail(label, e.key(), e.problem());
            return;
        } catch (RuntimeException e) {
            fail(label, spec.key(), Redaction.redact(Transports.reason(e)));
            return;
        }
        try {
            ok(label, spec.check(TIMEOUT));
        } catch (ConfigException e) {
            fail(label, e.key(), e.problem());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            fail(label, spec.key(), "cannot reach " + spec.describe() + ": " + Redaction.redact(Transports.reason(e)));
        }
    }

    private void ok(String label, String what) {
        out.println("check: " + label + ": OK: " + what);
        out.flush();
    }

    private void fail(String label, String key, String message) {
        problems.add(new Problem(key, message));
        out.println("check: " + label + ": FAILED: " + key + ": " + message);
        out.flush();
    }

    /** Whether the table exists at all (a stale shape is an error even with create-schema). */
    private static boolean tableExists(HikariDataSource pool, String table) {
        OutboxTable t = OutboxTable.of(table);
        try (Connection c = pool.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            for (String name : List.of(
                    t.name(), t.name().toLowerCase(Locale.ROOT), t.name().toUpperCase(Locale.ROOT))) {
                String schema = t.schema();
                for (String sc : schema == null
                        ? java.util.Arrays.asList((String) null)
                        : List.of(schema, schema.toLowerCase(Locale.ROOT), schema.toUpperCase(Locale.ROOT))) {
                    try (ResultSet rs = meta.getTables(null, sc, name, null)) {
                        if (rs.next()) {
                            return true;
                        }
                    }
                }
            }
            return false;
        } catch (SQLException e) {
            // Cannot tell: report the schema error itself.
            return true;
        }
    }
}
