package io.txoutbox.server.cli;

import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The command that runs a server: {@code run} (the {@code demo} command is {@code txoutbox-demo}'s). */
public final class ServeCommands {
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
    public static final class Run implements Callable<Integer> {
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

    public static Duration duration(Long seconds) {
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
