package io.txoutbox.server;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The commands that run a server: {@code run} and {@code demo}. */
final class ServeCommands {
    private ServeCommands() {}

    /** {@code txoutbox run --config file.yaml}. */
    @Command(
            name = "run",
            header = "Run the relay server from a YAML configuration file.",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Runs the relay server: relays every source of the configuration file, serves the admin API, the"
                        + " dashboard and /metrics, until SIGTERM or Ctrl-C (then finishes the batch in flight,"
                        + " returns leases and exits 0).",
                "Values may use $${NAME} or $${NAME:-default} to read environment variables (passwords, tokens)."
            })
    static final class Run implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(
                names = {"-c", "--config"},
                required = true,
                paramLabel = "FILE",
                description = "The YAML configuration file.")
        Path configFile;

        @Option(names = "--port", paramLabel = "PORT", description = "Overrides admin.port (0 picks a free port).")
        Integer port;

        @Option(
                names = "--check",
                description = "A dry run: validates the configuration, connects to each database and checks its"
                        + " table, reaches each broker (no publish), prints the result per source and route,"
                        + " and exits (0, or 2 naming the key at fault). Starts no relay, binds no port, changes"
                        + " no row and creates no table.")
        boolean check;

        @Option(names = "--duration", paramLabel = "SECONDS", description = "Stops by itself after this many seconds.")
        Long durationSeconds;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            ServerConfig config = ConfigLoader.load(configFile, TxoutboxCli.env()::get);
            if (port != null) {
                config = withPort(config, port);
            }
            if (check) {
                return ConfigCheck.run(config, out);
            }
            RelayServer server = RelayServer.start(config);
            out.println("txoutbox: relaying " + config.sources().size() + " source(s); admin API on http://"
                    + config.admin().host() + ":" + server.port() + "/ (Ctrl-C to stop)");
            out.flush();
            return Lifecycle.runUntilStopped(server, duration(durationSeconds), out, server.failure());
        }
    }

    /** {@code txoutbox demo}. */
    @Command(
            name = "demo",
            header = "Start the demo: embedded PostgreSQL, events flowing, dashboard on :8080.",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Starts everything on this machine with no setup: an embedded PostgreSQL, an order service that keeps"
                        + " appending events, a webhook receiver that verifies signatures (and refuses some events, so"
                        + " you see dead events and can revive them), and the relay server with its dashboard.",
                "Open the printed URL: events flow within seconds. Ctrl-C stops it cleanly."
            })
    static final class Demo implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(
                names = "--port",
                paramLabel = "PORT",
                defaultValue = "8080",
                description = "The dashboard's port (default ${DEFAULT-VALUE}).")
        int port;

        @Option(
                names = "--duration",
                paramLabel = "SECONDS",
                description = "Stops by itself after this many seconds (for scripted checks).")
        Long durationSeconds;

        @Option(
                names = "--rate",
                paramLabel = "ORDERS",
                defaultValue = "3",
                description = "Orders per second the demo service places (default ${DEFAULT-VALUE}).")
        int rate;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            if (port < 0 || port > 65_535) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--port must be 0 to 65535, not " + port);
            }
            if (rate < 1 || rate > 100) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rate must be 1 to 100, not " + rate);
            }
            DemoRunner demo = DemoRunner.start(port, rate, out);
            if (Boolean.getBoolean("txoutbox.demo.exitWithParent")) {
                // Started by the build (`-Pdemo`): when Maven is stopped, stop too (through the shutdown
                // hook), instead of keeping the port and the embedded database as an orphan.
                ProcessHandle.current().parent().ifPresent(parent -> parent.onExit()
                        .thenRun(() -> System.exit(0)));
            }
            return Lifecycle.runUntilStopped(demo, duration(durationSeconds), out);
        }
    }

    static Duration duration(Long seconds) {
        if (seconds == null) {
            return null;
        }
        if (seconds < 1) {
            throw new ConfigException("--duration", "must be at least 1 second, not " + seconds);
        }
        return Duration.ofSeconds(seconds);
    }

    static ServerConfig withPort(ServerConfig c, int port) {
        if (port < 0 || port > 65_535) {
            throw new ConfigException("--port", "must be 0 to 65535, not " + port);
        }
        return new ServerConfig(c.admin().withPort(port), c.sources(), c.startup());
    }
}
