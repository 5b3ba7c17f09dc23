package io.txoutbox.demo;

import io.txoutbox.server.TxoutboxServer;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox demo}: what {@link DemoRunner} starts, until Ctrl-C or {@code --duration}. Added to the
 * {@code txoutbox} command by {@link DemoMain}, so that the server's own jar has no demo (and no embedded
 * PostgreSQL).
 */
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
final class DemoCommand implements Callable<Integer> {
    private final PrintStream banner;

    /** A demo that prints its banner where it prints everything else. */
    DemoCommand() {
        this(null);
    }

    /**
     * @param banner where the banner goes (it holds the run's admin token, which the redacting standard
     *     output would hide), or {@code null} for the command's own output
     */
    DemoCommand(PrintStream banner) {
        this.banner = banner;
    }

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
        DemoRunner demo = DemoRunner.start(
                port, rate, out, banner == null ? out : new PrintWriter(banner, true, StandardCharsets.UTF_8));
        if (Boolean.getBoolean("txoutbox.demo.exitWithParent")) {
            // Started by the build (`-Pdemo`): when Maven is stopped, stop too (through the shutdown
            // hook), instead of keeping the port and the embedded database as an orphan.
            ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(0)));
        }
        return TxoutboxServer.runUntilStopped(demo, durationSeconds, out);
    }
}
