package io.txoutbox.harness.kafka;

import java.io.IOException;
import java.io.PrintStream;

/**
 * The child JVM of {@link KafkaBroker}: formats the KRaft storage, then runs Kafka's own broker main.
 * Kafka's classes are found by name, so the harness does not need the broker to compile, and a module
 * needs it only when its tests start one. It halts when its parent goes away (its standard input ends),
 * so no broker outlives the tests.
 */
final class KafkaBrokerMain {
    private KafkaBrokerMain() {}

    /**
     * @param args the {@code server.properties} path and the cluster id
     * @throws Exception when Kafka's classes are missing or fail
     */
    public static void main(String[] args) throws Exception {
        Thread watchdog = new Thread(
                () -> {
                    try {
                        while (System.in.read() >= 0) {
                            // Nothing is ever written; the stream ends when the parent closes it or dies.
                        }
                    } catch (IOException e) {
                        // The parent is gone either way.
                    }
                    Runtime.getRuntime().halt(0);
                },
                "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        Object formatted = Class.forName("kafka.tools.StorageTool")
                .getMethod("execute", String[].class, PrintStream.class)
                .invoke(null, new String[] {"format", "-t", args[1], "-c", args[0], "--standalone"}, System.out);
        if (formatted instanceof Integer code && code != 0) {
            Runtime.getRuntime().halt(10 + code);
        }
        Class.forName("kafka.Kafka").getMethod("main", String[].class).invoke(null, (Object) new String[] {args[0]});
    }
}
