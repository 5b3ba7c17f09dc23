package io.txoutbox.demo;

import io.txoutbox.server.TxoutboxServer;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * The main class of the demo's jar: the {@code txoutbox} command of the relay server with {@code demo}
 * added, so that {@code java -jar txoutbox-demo-<version>.jar demo} starts the demo, and every other
 * command ({@code stats}, {@code revive}, {@code run} ...) works as in the server's jar.
 *
 * <p>The demo reaches the server through its one public door, {@link TxoutboxServer}.
 */
public final class DemoMain {
    private DemoMain() {}

    /**
     * Runs the command line and exits with its code; {@code demo} returns only when it stops.
     *
     * @param args the arguments, e.g. {@code demo --port 9090}
     */
    public static void main(String[] args) {
        TxoutboxServer.redactStandardStreams();
        System.exit(execute(System.out, System.err, System.getenv(), TxoutboxServer.unredactedOut(), args));
    }

    /**
     * Runs the command line without exiting.
     *
     * @param banner where {@code demo} prints its banner, which holds the run's admin token: the terminal
     *     unredacted (the token is the demo's to hand over), or {@code null} for {@code out}
     *
     * @return the exit code: 0 ok, 1 a runtime failure, 2 a usage or configuration error
     */
    static int execute(PrintStream out, PrintStream err, Map<String, String> env, PrintStream banner, String... args) {
        return TxoutboxServer.execute(out, err, env, List.of(new DemoCommand(banner)), args);
    }
}
