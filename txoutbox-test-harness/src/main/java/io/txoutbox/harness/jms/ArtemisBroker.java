package io.txoutbox.harness.jms;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.security.CheckType;
import org.apache.activemq.artemis.core.security.Role;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.spi.core.security.ActiveMQSecurityManager;

/**
 * A real JMS broker: an embedded ActiveMQ Artemis broker in this JVM, persistent (a journal in a
 * temporary directory that {@link #close()} deletes), with a TCP acceptor on a free loopback port.
 * Every user and password is let in, and may do anything, except send to (or create) an address under
 * {@value #FORBIDDEN_PREFIX}, so that a test can provoke a refused permission.
 *
 * <pre>{@code
 * try (ArtemisBroker artemis = ArtemisBroker.start()) {
 *     ... JmsPublisher.builder().connectionFactory(artemis.factory(true)) ...
 * }
 * }</pre>
 *
 * <p>Starting takes a second or two: share one broker per test class or run, with destinations of
 * each test's own ({@link #newName}).
 */
public final class ArtemisBroker implements AutoCloseable {
    /** Addresses under this prefix refuse every user: a send there is a {@code JMSSecurityException}. */
    public static final String FORBIDDEN_PREFIX = "txoutbox-forbidden.";

    private final Path directory;
    private final int port;
    private EmbeddedActiveMQ broker;

    private ArtemisBroker(Path directory, int port) {
        this.directory = directory;
        this.port = port;
    }

    /**
     * @return a running broker on {@code 127.0.0.1} and a free port
     * @throws IllegalStateException when the broker does not start
     */
    public static ArtemisBroker start() {
        Path directory;
        int port;
        try {
            directory = Files.createTempDirectory("txoutbox-artemis-");
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up the Artemis broker's directory or port", e);
        }
        ArtemisBroker b = new ArtemisBroker(directory, port);
        b.startBroker();
        return b;
    }

    /**
     * Starts the broker again after {@link #stopBroker()}, on the same port and journal: what was stored
     * before the stop is there again.
     *
     * @throws IllegalStateException when the broker does not start
     */
    public synchronized void startBroker() {
        if (broker != null) {
            return;
        }
        try {
            Configuration config = new ConfigurationImpl()
                    .setPersistenceEnabled(true)
                    .setJournalType(JournalType.NIO)
                    // Stored in the journal but not forced to disk on every write: tests prove confirmations,
                    // not the disk.
                    .setJournalDatasync(false)
                    .setJournalDirectory(directory.resolve("journal").toString())
                    .setBindingsDirectory(directory.resolve("bindings").toString())
                    .setPagingDirectory(directory.resolve("paging").toString())
                    .setLargeMessagesDirectory(directory.resolve("large").toString())
                    .setSecurityEnabled(true)
                    .setJMXManagementEnabled(false)
                    .addAcceptorConfiguration("tcp", "tcp://127.0.0.1:" + port)
                    .putSecurityRoles("#", Set.of(role(true)))
                    .putSecurityRoles(FORBIDDEN_PREFIX + "#", Set.of(role(false)));
            broker = new EmbeddedActiveMQ()
                    .setConfiguration(config)
                    .setSecurityManager(new EveryoneInTheRole())
                    .start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded Artemis broker on port " + port, e);
        }
    }

    /**
     * Stops the broker (its clients lose their connections); {@link #startBroker()} brings it back.
     *
     * @throws IllegalStateException when the broker does not stop
     */
    public synchronized void stopBroker() {
        if (broker == null) {
            return;
        }
        try {
            broker.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the embedded Artemis broker", e);
        } finally {
            broker = null;
        }
    }

    /** @return where the broker's TCP acceptor listens */
    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** @return the broker's URL for the Artemis client, {@code tcp://127.0.0.1:port} */
    public String brokerUrl() {
        return "tcp://127.0.0.1:" + port;
    }

    /**
     * @param host where to connect (the broker, or a test's proxy)
     * @param port its port
     * @param confirmationWindow whether the client asks the broker to confirm asynchronous sends
     *     (without it, Artemis completes them on the sending thread at once)
     * @return a connection factory of the Artemis Jakarta client; its calls (a connection's handshake
     *     too) give up after 2 s instead of Artemis's 30 s, so that an attempt into a cut proxy ends soon
     */
    public static ActiveMQConnectionFactory factory(String host, int port, boolean confirmationWindow) {
        return new ActiveMQConnectionFactory("tcp://" + host + ":" + port
                + (confirmationWindow ? "?confirmationWindowSize=1048576&callTimeout=2000" : "?callTimeout=2000"));
    }

    /**
     * @param confirmationWindow as in {@link #factory(String, int, boolean)}
     * @return a factory straight to the broker
     */
    public ActiveMQConnectionFactory factory(boolean confirmationWindow) {
        return factory("127.0.0.1", port, confirmationWindow);
    }

    /**
     * @param prefix the start of the name, for example {@code txoutbox-orders-}
     * @return a destination name no other test uses: the prefix and random hex
     */
    public static String newName(String prefix) {
        return prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    /** Stops the broker and deletes its journal. Idempotent. */
    @Override
    public synchronized void close() {
        try {
            stopBroker();
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException | UncheckedIOException e) {
                // Already gone, or a temporary directory left behind: harmless.
            }
        }
    }

    private static Role role(boolean allowed) {
        return new Role(
                EveryoneInTheRole.ROLE,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed,
                allowed);
    }

    /** Lets every user in, all in one role: the security settings per address decide what it may do. */
    private static final class EveryoneInTheRole implements ActiveMQSecurityManager {
        static final String ROLE = "everyone";

        @Override
        public boolean validateUser(String user, String password) {
            return true;
        }

        @Override
        public boolean validateUserAndRole(String user, String password, Set<Role> roles, CheckType checkType) {
            return roles.stream().anyMatch(r -> r.getName().equals(ROLE) && checkType.hasRole(r));
        }
    }
}
