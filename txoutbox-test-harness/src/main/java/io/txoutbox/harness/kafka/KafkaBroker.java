package io.txoutbox.harness.kafka;

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
import java.util.concurrent.ExecutionException;
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
 * child JVM with a fresh log directory that {@link #close()} deletes. Its listeners, all on loopback:
 *
 * <ul>
 *   <li>{@code PLAINTEXT} ({@link #bootstrapServers()}): direct access, for consumers and admin (a super
 *       user);
 *   <li>{@code PROXIED}: advertised at {@link #proxyPort()}, where a test puts a {@code TcpProxy} in
 *       front of {@link #proxiedTarget()}. Kafka clients connect to the advertised address after
 *       bootstrap, so only an advertised proxy really carries (and cuts) all of their traffic;
 *   <li>{@code SASL} ({@link #saslBootstrapServers()}): SASL/PLAIN with one user, {@link #SASL_USER},
 *       who has no ACL at all (an authorizer runs; the other listeners' anonymous user is a super user).
 * </ul>
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.start()) {
 *     kafka.createTopic("orders", 1);
 *     ... kafka.bootstrapServers() ...
 * }
 * }</pre>
 *
 * <p>The child JVM runs on this JVM's class path, which must hold {@code org.apache.kafka:kafka_2.13}
 * (test scope is enough). It halts by itself when this JVM ends, so no broker outlives a test run.
 * Starting takes seconds: share one broker per test class or run, with a topic per test ({@link
 * #newTopic}).
 */
public final class KafkaBroker implements AutoCloseable {
    /** {@code message.max.bytes} unless the builder says otherwise: small, to test a record too large. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024;
    /** The one user of the SASL/PLAIN listener. */
    public static final String SASL_USER = "alice";
    /** {@link #SASL_USER}'s password. */
    public static final String SASL_PASSWORD = "alice-secret";

    private static final List<String> DEFAULT_JVM_OPTIONS =
            List.of("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private final Path dir;
    private final Process process;
    private final OutputStream lifeline;
    private final int plainPort;
    private final int proxiedPort;
    private final int proxyPort;
    private final int saslPort;
    private final int maxMessageBytes;

    private KafkaBroker(Path dir, Process process, int[] ports, int maxMessageBytes) {
        this.dir = dir;
        this.process = process;
        this.lifeline = process.getOutputStream();
        this.plainPort = ports[0];
        this.proxiedPort = ports[1];
        this.proxyPort = ports[2];
        this.saslPort = ports[3];
        this.maxMessageBytes = maxMessageBytes;
    }

    /**
     * Starts a broker with the defaults: {@link #DEFAULT_MAX_MESSAGE_BYTES}, topics created on first
     * use, a 512 MiB heap.
     *
     * @return the running broker, ready for clients
     * @throws IOException when its directory or ports cannot be set up
     * @throws IllegalStateException when it exits or does not come up within 90 seconds (with the tail of
     *     its log), or when Kafka's broker is not on the class path
     */
    public static KafkaBroker start() throws IOException {
        return builder().start();
    }

    /** @return a builder for a broker with other limits or JVM options */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the direct listener, {@code 127.0.0.1:port} */
    public String bootstrapServers() {
        return "127.0.0.1:" + plainPort;
    }

    /** @return where a proxy in front of the {@code PROXIED} listener forwards to */
    public InetSocketAddress proxiedTarget() {
        return new InetSocketAddress("127.0.0.1", proxiedPort);
    }

    /**
     * @return the port the {@code PROXIED} listener advertises: a proxy listening there carries every
     *     connection of a client bootstrapped on {@code 127.0.0.1:proxyPort()}
     */
    public int proxyPort() {
        return proxyPort;
    }

    /** @return the SASL/PLAIN listener, {@code 127.0.0.1:port} */
    public String saslBootstrapServers() {
        return "127.0.0.1:" + saslPort;
    }

    /** @return the broker's {@code message.max.bytes} */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /** @return a new admin client on the direct listener; the caller closes it */
    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    /**
     * Creates a topic unless it exists, and waits until it does.
     *
     * @param topic the topic
     * @param partitions its partitions
     * @throws Exception when the broker refuses or does not answer within 30 seconds
     */
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            try {
                admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Creates a topic of a name no other test uses.
     *
     * @param what a word for the test, e.g. {@code order}
     * @param partitions its partitions
     * @return the topic, {@code txoutbox-<what>-<random hex>} (see {@link #newTopic(String)})
     * @throws Exception when the broker refuses or does not answer within 30 seconds
     */
    public String createNewTopic(String what, int partitions) throws Exception {
        String topic = newTopic(what);
        createTopic(topic, partitions);
        return topic;
    }

    /**
     * Deletes a topic if it exists; failures are ignored (the broker's data goes away at {@link #close()}
     * anyway).
     *
     * @param topic the topic
     */
    public void deleteTopic(String topic) {
        try (Admin admin = admin()) {
            admin.deleteTopics(Set.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Nothing to clean up then.
        }
    }

    /**
     * @param what a word for the test, e.g. {@code order}
     * @return a topic name no other test uses: {@code txoutbox-<what>-<random hex>}
     */
    public static String newTopic(String what) {
        return "txoutbox-" + what + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    /** Kills the broker (its data is thrown away anyway) and deletes its directory. Idempotent. */
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
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "KafkaBroker[" + bootstrapServers() + ", proxied "
                + proxiedTarget().getPort() + " advertised at " + proxyPort + ", sasl " + saslPort + "]";
    }

    private void awaitReady(Duration bound) throws InterruptedException {
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
                } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(
                                "the Kafka broker did not come up within " + bound + ":\n" + logTail(), notYet);
                    }
                    Thread.sleep(200);
                }
            }
        }
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

    /** Configures a {@link KafkaBroker}. */
    public static final class Builder {
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
        private boolean autoCreateTopics = true;
        private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;

        private Builder() {}

        /**
         * @param maxMessageBytes the broker's {@code message.max.bytes} (default {@link
         *     #DEFAULT_MAX_MESSAGE_BYTES})
         * @return this builder
         */
        public Builder maxMessageBytes(int maxMessageBytes) {
            if (maxMessageBytes < 1024) {
                throw new IllegalArgumentException("maxMessageBytes is " + maxMessageBytes + "; at least 1024");
            }
            this.maxMessageBytes = maxMessageBytes;
            return this;
        }

        /**
         * @param autoCreateTopics create a topic when a client first uses it (default true); with false,
         *     tests create topics with {@link KafkaBroker#createTopic}
         * @return this builder
         */
        public Builder autoCreateTopics(boolean autoCreateTopics) {
            this.autoCreateTopics = autoCreateTopics;
            return this;
        }

        /**
         * @param options the broker JVM's options, replacing the default {@code -Xms128m -Xmx512m
         *     -XX:+UseSerialGC -XX:TieredStopAtLevel=1} (small and quick to start; a benchmark wants
         *     more)
         * @return this builder
         */
        public Builder jvmOptions(String... options) {
            this.jvmOptions = List.of(options);
            return this;
        }

        /**
         * @return the running broker, ready for clients
         * @throws IOException when its directory or ports cannot be set up
         * @throws IllegalStateException when it exits or does not come up within 90 seconds (with the
         *     tail of its log), or when Kafka's broker is not on the class path
         */
        public KafkaBroker start() throws IOException {
            try {
                Class.forName("kafka.Kafka", false, KafkaBroker.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(
                        "KafkaBroker needs org.apache.kafka:kafka_2.13 on the test class path (the harness"
                                + " declares it optional)",
                        e);
            }
            Path dir = Files.createTempDirectory("txoutbox-kafka-");
            List<Integer> free = freePorts(5);
            int[] ports = {free.get(0), free.get(1), free.get(2), free.get(3)};
            int plain = ports[0], proxied = ports[1], proxy = ports[2], sasl = ports[3], controller = free.get(4);
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
            p.put("auto.create.topics.enable", Boolean.toString(autoCreateTopics));
            p.put("message.max.bytes", Integer.toString(maxMessageBytes));
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
                p.store(out, "txoutbox test harness");
            }
            // An argument file keeps the long test class path off the command line.
            Path args = dir.resolve("jvm.args");
            Files.writeString(
                    args, "-cp \"" + System.getProperty("java.class.path").replace("\\", "\\\\") + "\"\n");
            List<String> command = new ArrayList<>();
            command.add(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.add("-Djava.awt.headless=true");
            command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
            command.add("@" + args);
            command.add(KafkaBrokerMain.class.getName());
            command.add(config.toString());
            command.add(Uuid.randomUuid().toString());
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("broker.log").toFile())
                    .start();
            KafkaBroker broker = new KafkaBroker(dir, process, ports, maxMessageBytes);
            try {
                broker.awaitReady(Duration.ofSeconds(90));
            } catch (InterruptedException e) {
                broker.close();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the Kafka broker started", e);
            } catch (RuntimeException | Error e) {
                broker.close();
                throw e;
            }
            return broker;
        }
    }
}
