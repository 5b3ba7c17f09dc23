package io.txoutbox.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A single-node KRaft Kafka (broker and controller in one JVM), started from Kafka's own jars in a
 * child JVM with a fresh log directory that is deleted at close. Plain text on loopback only. The
 * child needs {@code kafka_2.13} on the class path: the bench profile and the tests run on the test
 * class path, which has it.
 */
final class KafkaBroker implements AutoCloseable {
    private final Path dir;
    private final Process process;
    private final OutputStream lifeline;
    private final int port;

    private KafkaBroker(Path dir, Process process, int port) {
        this.dir = dir;
        this.process = process;
        this.lifeline = process.getOutputStream();
        this.port = port;
    }

    static KafkaBroker start() throws Exception {
        Path dir = Files.createTempDirectory("txoutbox-bench-kafka-");
        int port = freePort();
        int controller = freePort();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controller);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dir.resolve("data").toString());
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        Path config = dir.resolve("server.properties");
        try (OutputStream out = Files.newOutputStream(config)) {
            p.store(out, "txoutbox-bench");
        }
        // An argument file keeps the long class path off the command line.
        Path args = dir.resolve("jvm.args");
        Files.writeString(args, "-cp \"" + System.getProperty("java.class.path").replace("\\", "\\\\") + "\"\n");
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(
                        java,
                        "-Xms256m",
                        "-Xmx1g",
                        "-XX:+UseParallelGC",
                        "-Djava.awt.headless=true",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "@" + args,
                        KafkaBrokerMain.class.getName(),
                        config.toString(),
                        Uuid.randomUuid().toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("broker.log").toFile())
                .start();
        KafkaBroker broker = new KafkaBroker(dir, process, port);
        try {
            broker.awaitReady(Duration.ofSeconds(90));
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    private void awaitReady(Duration bound) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        try (Admin admin = admin()) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(
                            "the Kafka broker exited with " + process.exitValue() + ":\n" + logTail());
                }
                try {
                    admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
                    return;
                } catch (Exception notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(
                                "the Kafka broker did not come up within " + bound + ":\n" + logTail(), notYet);
                    }
                    Thread.sleep(200);
                }
            }
        }
    }

    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    private Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    void deleteTopic(String topic) {
        try (Admin admin = admin()) {
            admin.deleteTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // The broker and its directory go away at close anyway.
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("broker.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no broker log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    /** Kills the broker (its data is thrown away) and deletes its directory. */
    @Override
    public void close() {
        try {
            lifeline.close();
        } catch (IOException ignored) {
            // The child halts on its own when its input ends.
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
