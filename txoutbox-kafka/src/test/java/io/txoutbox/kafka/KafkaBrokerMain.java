package io.txoutbox.kafka;

import java.io.IOException;

/**
 * The child JVM of {@link KafkaBroker}: formats the KRaft storage, then runs Kafka's own broker main.
 * It halts when its parent goes away (its standard input closes), so no broker outlives the tests.
 */
final class KafkaBrokerMain {
    private KafkaBrokerMain() {}

    /**
     * @param args the {@code server.properties} path and the cluster id
     */
    public static void main(String[] args) {
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

        int formatted = kafka.tools.StorageTool.execute(
                new String[] {"format", "-t", args[1], "-c", args[0], "--standalone"}, System.out);
        if (formatted != 0) {
            Runtime.getRuntime().halt(10 + formatted);
        }
        kafka.Kafka.main(new String[] {args[0]});
    }
}
