package io.txoutbox.server.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Dialect;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxTable;
import io.txoutbox.Redaction;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code txoutbox schema}: prints the DDL of the outbox table, or applies it to the sources of a config. */
@Command(
        name = "schema",
        header = "Print the outbox table's DDL for a dialect, or --apply it to the configured sources.",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Prints the DDL of the outbox table (table and indexes) for a dialect, for your migration tool.",
            "With --foreign-writer-wakeups (PostgreSQL), also the trigger that wakes idle relays when programs other"
                    + " than txoutbox insert rows.",
            "With --apply --config FILE, creates the table of every source of that file (if missing) instead."
        })
public final class SchemaCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--dialect",
            paramLabel = "NAME",
            defaultValue = "postgresql",
            description = "postgresql, mariadb, mysql or h2 (default ${DEFAULT-VALUE}).")
    String dialect;

    @Option(
            names = "--table",
            paramLabel = "NAME",
            defaultValue = "outbox",
            description = "The table, optionally schema.name (default ${DEFAULT-VALUE}).")
    String table;

    @Option(names = "--apply", description = "Creates the tables of the sources in --config instead of printing.")
    boolean apply;

    @Option(
            names = "--foreign-writer-wakeups",
            description = "PostgreSQL: add the trigger that wakes idle relays on rows inserted by other programs.")
    boolean foreignWriterWakeups;

    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "The configuration whose sources --apply creates.")
    Path config;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (apply) {
            if (config == null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--apply needs --config FILE (the sources' databases and tables)");
            }
            ServerConfig c = ConfigLoader.load(config, TxoutboxCli.env()::get);
            for (int i = 0; i < c.sources().size(); i++) {
                apply(c.sources().get(i), "sources[" + i + "]", out);
            }
            return TxoutboxCli.OK;
        }
        Dialect d;
        try {
            d = Dialect.named(dialect);
        } catch (OutboxException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--dialect: " + e.getMessage());
        }
        OutboxTable t;
        try {
            t = OutboxTable.of(table);
        } catch (OutboxException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--table: " + e.getMessage());
        }
        out.println("-- txoutbox outbox table " + t.qualifiedName() + " for " + d.name());
        out.println(d.outboxDdl(t).strip());
        if (foreignWriterWakeups) {
            if (d != Dialect.POSTGRESQL) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--foreign-writer-wakeups: only PostgreSQL can wake relays (--dialect)");
            }
            out.println();
            out.println(d.foreignWriterWakeupDdl(t).strip());
        }
        return TxoutboxCli.OK;
    }

    private static void apply(ServerConfig.Source s, String key, PrintWriter out) {
        HikariConfig h = s.poolConfig();
        h.setMaximumPoolSize(2);
        try (HikariDataSource ds = new HikariDataSource(h)) {
            try (Connection c = ds.getConnection()) {
                c.isValid(5);
            } catch (java.sql.SQLException e) {
                throw new ConfigException(
                        key + ".jdbc-url", "cannot connect (" + Redaction.redact(s.jdbcUrl()) + "): " + e.getMessage());
            }
            Dialect d = s.resolveDialect(ds);
            s.outboxBuilder(ds, d).createSchemaIfMissing(true).build().close();
            out.println("source " + s.name() + ": table " + s.table() + " is ready (" + d.name() + ")");
        }
    }
}
