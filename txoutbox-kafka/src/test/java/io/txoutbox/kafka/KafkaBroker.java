package io.txoutbox.kafka;

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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A real single-node KRaft Kafka (broker and controller in one), started from Kafka's own jars in a
 * child JVM with a fresh log directory. Its listeners:
 *
 * <ul>
 *   <li>{@code PLAINTEXT}: direct access, for consumers and admin (a super user);
 *   <li>{@code PROXIED}: advertised at {@link #proxyPort()}, where the tests put a {@code TcpProxy}
 *       in front of {@link #proxiedTarget()}. Kafka clients connect to the advertised address after
 *       bootstrap, so only an advertised proxy really carries (and cuts) their traffic;
 *   <li>{@code SASL}: SASL/PLAIN with one user, {@code alice}, who has no ACL at all.
 * </ul>
 *
 * <p>{@code message.max.bytes} is {@link #MAX_MESSAGE_BYTES}, small enough to test a record that is
 * too large.
 */
final class KafkaBroker implements AutoCloseable {
    static final int MAX_MESSAGE_BYTES = 256 * 1024;
    static final String SASL_USER = "alice";
    static final String SASL_PASSWORD = "alice-secret";

    private final Path dir;
    private final Process process;
    private final OutputStream lifeline;
    private final int plainPort;
    private final int proxiedPort;
    private final int proxyPort;
    private final int saslPort;

    private KafkaBroker(Path dir, Process process, int plainPort, int proxiedPort, int proxyPort, int saslPort) {
        this.dir = dir;
        this.process = process;
        this.lifeline = process.getOutputStream();
        this.plainPort = plainPort;
        this.proxiedPort = proxiedPort;
        this.proxyPort = proxyPort;
        this.saslPort = saslPort;
    }

    static KafkaBroker start() throws Exception {
        Path dir = Files.createTempDirectory("txoutbox-kafka-");
        List<Integer> ports = freePorts(5);
        int plain = ports.get(0),
                proxied = ports.get(1),
                proxy = ports.get(2),
                sasl = ports.get(3),
                controller = ports.get(4);
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controller);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + plain + ",PROXIED://127.0.0.1:" + proxied + ",SASL://127.0.0.1:" + sasl
                        + ",CONTROLLER://127.0.0.1:" + controller);
        p.put(
                "advertised.listeners",
                "PLAINTEXT://127.0.0.1:" + plain + ",PROXIED://127.0.0.1:" + proxy + ",SASL://127.0.0.1:" + sasl);
        p.put(
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,SASL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("listener.name.sasl.sasl.enabled.mechanisms", "PLAIN");
        p.put(
                "listener.name.sasl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + SASL_USER + "=\""
                        + SASL_PASSWORD + "\";");
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("super.users", "User:ANONYMOUS");
        p.put("log.dirs", dir.resolve("data").toString());
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "true");
        p.put("message.max.bytes", Integer.toString(MAX_MESSAGE_BYTES));
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
            p.store(out, "txoutbox-kafka tests");
        }
        // An argument file keeps the long test class path off the command line.
        Path args = dir.resolve("jvm.args");
        Files.writeString(args, "-cp \"" + System.getProperty("java.class.path").replace("\\", "\\\\") + "\"\n");
        Path log = dir.resolve("broker.log");
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(
                        java,
                        "-Xms128m",
                        "-Xmx512m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-Djava.awt.headless=true",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "@" + args,
                        KafkaBrokerMain.class.getName(),
                        config.toString(),
                        Uuid.randomUuid().toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        KafkaBroker broker = new KafkaBroker(dir, process, plain, proxied, proxy, sasl);
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

    /** @return the direct listener: {@code 127.0.0.1:port} */
    String bootstrapServers() {
        return "127.0.0.1:" + plainPort;
    }

    /** @return where the proxy in front of the {@code PROXIED} listener forwards to */
    InetSocketAddress proxiedTarget() {
        return new InetSocketAddress("127.0.0.1", proxiedPort);
    }

    /** @return the port the {@code PROXIED} listener advertises: the proxy must listen there */
    int proxyPort() {
        return proxyPort;
    }

    /** @return the SASL/PLAIN listener: {@code 127.0.0.1:port} */
    String saslBootstrapServers() {
        return "127.0.0.1:" + saslPort;
    }

    Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    /** Creates a topic unless it exists, and waits until it does. */
    void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            try {
                admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1)))
                        .all()
                        .get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    /** @return a unique topic name for one test */
    static String newTopic(String what) {
        return "txoutbox-" + what + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("broker.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no broker log: " + e + ")";
        }
    }

    /**
     * Free loopback ports below Linux's ephemeral range, so that no outgoing connection takes one while
     * the broker, or a proxy that comes and goes, needs it.
     */
    private static List<Integer> freePorts(int n) throws IOException {
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < n) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
            if (ports.contains(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                ports.add(port);
            } catch (IOException taken) {
                // Try another.
            }
        }
        return ports;
    }

    /** Kills the broker (its data is thrown away anyway) and deletes its directory. */
    @Override
    public void close() {
        try {
            lifeline.close();
        } catch (IOException ignored) {
            // The child halts on its own when it sees the end of its input.
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
