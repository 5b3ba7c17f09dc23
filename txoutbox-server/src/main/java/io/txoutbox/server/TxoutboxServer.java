package io.txoutbox.server;

import io.txoutbox.server.cli.Lifecycle;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.cli.ServeCommands;
import io.txoutbox.server.cli.TxoutboxCli;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.http.RedactedOutput;
import io.txoutbox.server.source.Activity;
import io.txoutbox.server.source.RelaySource;
import io.txoutbox.server.yaml.ConfigException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The relay server as a library, for programs that embed it (the demo, {@code txoutbox-demo}): start a
 * server from its YAML, and run the {@code txoutbox} command line with commands of their own. This is the
 * server's one public door, and its main class ({@code java -cp txoutbox-server.jar:more.jar
 * io.txoutbox.server.TxoutboxServer run ...}); the packages below it ({@code config}, {@code transport},
 * {@code source}, {@code http}, {@code cli}, {@code yaml}) are the server's own, with no promise to
 * programs outside it.
 */
public final class TxoutboxServer implements AutoCloseable {
    /**
     * Runs the {@code txoutbox} command line (see {@code txoutbox help}) with the standard streams redacted,
     * and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        TxoutboxCli.main(args);
    }

    private final RelayServer server;

    private TxoutboxServer(RelayServer server) {
        this.server = server;
    }

    /**
     * @param yaml the configuration, as the {@code txoutbox run --config} file holds it
     * @param env the environment its {@code ${VAR}} references read
     * @return the server, running: its relays, its admin API and dashboard
     * @throws RuntimeException naming the configuration key at fault, as {@code txoutbox run} reports it
     */
    public static TxoutboxServer start(String yaml, Function<String, String> env) {
        return new TxoutboxServer(RelayServer.start(ConfigLoader.parse(yaml, env)));
    }

    /**
     * @param yaml the configuration
     * @param env the environment its {@code ${VAR}} references read
     * @return each route of each source, as {@code txoutbox run --check} describes it ({@code orders/webhook:
     *     [order.*] -> webhook ...}), with no secret in it
     * @throws RuntimeException naming the configuration key at fault
     */
    public static List<String> routes(String yaml, Function<String, String> env) {
        List<String> routes = new ArrayList<>();
        for (ServerConfig.Source s : ConfigLoader.parse(yaml, env).sources()) {
            for (ServerConfig.Route r : s.routes()) {
                routes.add(s.name() + "/" + r.name() + ": " + r.types() + " -> "
                        + r.transport().describe());
            }
        }
        return routes;
    }

    /** @return the port of the admin API and dashboard */
    public int port() {
        return server.port();
    }

    /**
     * @param source a source's name
     * @return what its relays have done since the start, or empty when there is no such source (yet)
     */
    public Optional<Totals> totals(String source) {
        RelaySource s = server.source(source);
        if (s == null) {
            return Optional.empty();
        }
        Activity.Counts c = s.activity().totals();
        return Optional.of(new Totals(c.published(), c.retried(), c.dead()));
    }

    /**
     * What a source's relays have done.
     *
     * @param published events published
     * @param retried attempts that failed and are retried
     * @param dead events that went dead
     */
    public record Totals(long published, long retried, long dead) {}

    /** Stops the relays (the batch in flight finished, leases returned) and the admin API. */
    @Override
    public void close() {
        server.close();
    }

    /**
     * Runs the {@code txoutbox} command line with commands of the caller's own beside the server's.
     *
     * @param out standard output
     * @param err standard error
     * @param env the environment
     * @param commands picocli commands to add ({@code demo})
     * @param args the arguments
     * @return the exit code: {@link TxoutboxCli#OK}, {@link TxoutboxCli#FAILURE} or {@link TxoutboxCli#USAGE}
     */
    public static int execute(
            PrintStream out, PrintStream err, Map<String, String> env, List<Object> commands, String... args) {
        return TxoutboxCli.execute(out, err, env, commands, args);
    }

    /**
     * Makes standard output and error redact secrets (URLs' passwords, tokens), as the server's own main
     * does; {@link #unredactedOut()} keeps the terminal unredacted for what must show a secret.
     */
    public static void redactStandardStreams() {
        RedactedOutput.install();
    }

    /** @return standard output as it was before {@link #redactStandardStreams()} */
    public static PrintStream unredactedOut() {
        return RedactedOutput.unredactedOut();
    }

    /**
     * Holds a running thing until Ctrl-C (or the duration), then closes it, as {@code txoutbox run} does.
     *
     * @param running what to close at the end
     * @param durationSeconds stop by itself after this many seconds, or {@code null} to wait for Ctrl-C
     * @param out where to say that it stops
     * @return the exit code
     * @throws InterruptedException when interrupted while waiting
     */
    public static int runUntilStopped(AutoCloseable running, Long durationSeconds, PrintWriter out)
            throws InterruptedException {
        return Lifecycle.runUntilStopped(running, ServeCommands.duration(durationSeconds), out);
    }

    /**
     * @param key the option or key at fault, {@code --port}
     * @param problem what is wrong with it
     * @return the error the command line reports as a configuration error (exit code {@link
     *     TxoutboxCli#USAGE}), naming {@code key}
     */
    public static RuntimeException configurationError(String key, String problem) {
        return new ConfigException(key, problem);
    }
}
