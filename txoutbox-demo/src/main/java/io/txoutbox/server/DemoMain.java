package io.txoutbox.server;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * The main class of the demo's jar: the {@code txoutbox} command of the relay server with {@code demo}
 * added, so that {@code java -jar txoutbox-demo-<version>.jar demo} starts the demo, and every other
 * command ({@code stats}, {@code revive}, {@code run} ...) works as in the server's jar.
 *
 * <p>The demo's classes are in the server's package, in a jar of their own: they start the server
 * through its package-private classes, as its own command does, without the server having an API for it.
 */
public final class DemoMain {
    private DemoMain() {}

    /**
     * Runs the command line and exits with its code; {@code demo} returns only when it stops.
     *
     * @param args the arguments, e.g. {@code demo --port 9090}
     */
    public static void main(String[] args) {
        RedactedOutput.install();
        System.exit(execute(System.out, System.err, System.getenv(), RedactedOutput.unredactedOut(), args));
    }

    /**
     * Runs the command line without exiting.
     *
     * @param banner where {@code demo} prints its banner, which holds the run's admin token: the terminal
     *     unredacted (the token is the demo's to hand over), or {@code null} for {@code out}
     *
     * @return the exit code: {@link TxoutboxCli#OK}, {@link TxoutboxCli#FAILURE} or {@link TxoutboxCli#USAGE}
     */
    static int execute(PrintStream out, PrintStream err, Map<String, String> env, PrintStream banner, String... args) {
        return TxoutboxCli.execute(out, err, env, List.of(new DemoCommand(banner)), args);
    }
}
