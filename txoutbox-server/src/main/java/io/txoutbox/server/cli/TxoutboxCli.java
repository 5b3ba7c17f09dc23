package io.txoutbox.server.cli;

import io.txoutbox.server.http.RedactedOutput;
import io.txoutbox.server.yaml.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code txoutbox} command: the standalone relay server ({@code run}), the client of a running
 * server's admin API ({@code stats}, {@code dead}, {@code revive}, {@code
 * delete-dead}, {@code purge}, {@code pause}, {@code resume}) and the DDL ({@code schema}). The demo
 * ({@code demo}) is another jar's: {@code txoutbox-demo} adds it to this command.
 *
 * <p>Exit codes: 0 success; 1 a runtime failure (the server or the database is unreachable, a stop
 * failed); 2 a usage or configuration error (unknown option, bad configuration key, wrong token,
 * unknown source).
 */
@Command(
        name = "txoutbox",
        mixinStandardHelpOptions = true,
        versionProvider = TxoutboxCli.Version.class,
        sortOptions = false,
        usageHelpAutoWidth = true,
        header = "Relays any outbox table to Kafka, RabbitMQ, NATS, Redis, MQTT, SQS, JMS or webhooks, with an"
                + " admin API, a dashboard and metrics.",
        description = {
            "",
            "The outbox table is the contract: any service, in any language, inserts rows; this server"
                    + " publishes them at least once and lets you watch, revive and purge them.",
            ""
        },
        commandListHeading = "%nCommands:%n",
        footerHeading = "%n",
        footer = {
            "Production:  txoutbox run --config txoutbox.yaml",
            "Try it:      txoutbox demo, in the txoutbox-demo jar (see the README)",
            "Help:        txoutbox help COMMAND",
            "",
            "Exit codes:  0 ok, 1 runtime failure (server or database unreachable),",
            "             2 usage or configuration error.",
            "Client commands (stats, dead, revive, ...) read TXOUTBOX_SERVER",
            "(default http://127.0.0.1:8080) and TXOUTBOX_ADMIN_TOKEN."
        },
        subcommands = {
            ServeCommands.Run.class,
            ClientCommands.Stats.class,
            ClientCommands.Dead.class,
            ClientCommands.Revive.class,
            ClientCommands.DeleteDead.class,
            ClientCommands.Purge.class,
            ClientCommands.Pause.class,
            ClientCommands.Resume.class,
            SchemaCommand.class,
            CommandLine.HelpCommand.class
        })
public final class TxoutboxCli implements Runnable {
    /** Success. */
    public static final int OK = 0;
    /** A runtime failure: the server or the database is unreachable, a stop failed. */
    public static final int FAILURE = 1;
    /** A usage or configuration error: unknown option, bad configuration key, wrong token. */
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Exposes the environment to subcommands, so tests can give their own. */
    static final ThreadLocal<Map<String, String>> ENV = ThreadLocal.withInitial(System::getenv);

    private TxoutboxCli() {}

    /**
     * Runs the command line and exits with its code. {@code run} and {@code demo} return only when they
     * stop.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        RedactedOutput.install();
        System.exit(execute(System.out, System.err, System.getenv(), args));
    }

    /**
     * Runs the command line without exiting.
     *
     * @param out where results go
     * @param err where errors go
     * @param env the environment ({@code ${NAME}} placeholders, {@code TXOUTBOX_*} defaults)
     * @param args the arguments
     * @return the exit code: {@link #OK}, {@link #FAILURE} or {@link #USAGE}
     */
    public static int execute(PrintStream out, PrintStream err, Map<String, String> env, String... args) {
        return execute(out, err, env, List.of(), args);
    }

    /**
     * As {@link #execute(PrintStream, PrintStream, Map, String...)}, with more commands: the demo's jar
     * adds {@code demo} so.
     *
     * @param commands picocli commands, each named by its {@code @Command}
     */
    public static int execute(
            PrintStream out, PrintStream err, Map<String, String> env, List<Object> commands, String... args) {
        ENV.set(Map.copyOf(env));
        try {
            CommandLine cli = new CommandLine(new TxoutboxCli());
            commands.forEach(cli::addSubcommand);
            // Whatever a command prints, a driver's or a client's words included, passes the redaction path.
            cli.setOut(new PrintWriter(RedactedOutput.stream(out), true, StandardCharsets.UTF_8));
            cli.setErr(new PrintWriter(RedactedOutput.stream(err), true, StandardCharsets.UTF_8));
            cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
                PrintWriter w = commandLine.getErr();
                if (e instanceof ConfigException) {
                    w.println("txoutbox: configuration error: " + e.getMessage());
                    return USAGE;
                }
                if (e instanceof ClientCommands.ClientException c) {
                    w.println("txoutbox: " + c.getMessage());
                    return c.exitCode;
                }
                w.println("txoutbox: " + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()));
                return FAILURE;
            });
            return cli.execute(args);
        } finally {
            ENV.remove();
        }
    }

    public static Map<String, String> env() {
        return ENV.get();
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(),
                "Missing command: see 'txoutbox help'; a server runs with 'txoutbox run --config FILE'");
    }

    /** The version from the build. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = TxoutboxCli.class.getResourceAsStream("/io/txoutbox/server/version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            return new String[] {"txoutbox " + p.getProperty("version", "(unknown version)")};
        }
    }
}
