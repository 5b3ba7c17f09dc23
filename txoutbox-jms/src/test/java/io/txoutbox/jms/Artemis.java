package io.txoutbox.jms;

import java.io.IOException;
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
 * One embedded ActiveMQ Artemis broker for the whole test run: persistent (a journal in a temporary
 * directory), a real TCP acceptor on a free loopback port. Anyone may do anything, except send to
 * (or create) an address under {@value #FORBIDDEN_PREFIX}.
 */
final class Artemis {
    static final String FORBIDDEN_PREFIX = "txoutbox-forbidden.";

    private static EmbeddedActiveMQ broker;
    private static InetSocketAddress address;
    private static Path directory;

    private Artemis() {}

    static synchronized InetSocketAddress address() {
        if (broker == null) {
            try {
                start();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the embedded Artemis broker", e);
            }
        }
        return address;
    }

    private static void start() throws Exception {
        int port = freePort();
        directory = Files.createTempDirectory("txoutbox-artemis-");
        Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(true)
                .setJournalType(JournalType.NIO)
                // Stored in the journal but not forced to disk on every write: the tests prove
                // confirmations, not the disk.
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
        address = new InetSocketAddress("127.0.0.1", port);
        Runtime.getRuntime().addShutdownHook(new Thread(Artemis::stop, "artemis-stop"));
    }

    /**
     * @param host where to connect (the broker, or a test's proxy)
     * @param port its port
     * @param confirmationWindow whether the client asks the broker to confirm asynchronous sends
     *     (without it, Artemis completes them on the sending thread at once)
     * @return a connection factory of the Artemis Jakarta client; its calls (a connection's handshake
     *     too) give up after 2 s instead of Artemis's 30 s, so a connection attempt into a cut proxy
     *     ends soon
     */
    static ActiveMQConnectionFactory factory(String host, int port, boolean confirmationWindow) {
        return new ActiveMQConnectionFactory("tcp://" + host + ":" + port
                + (confirmationWindow ? "?confirmationWindowSize=1048576&callTimeout=2000" : "?callTimeout=2000"));
    }

    /** @return a factory straight to the broker, for test consumers */
    static ActiveMQConnectionFactory direct() {
        InetSocketAddress a = address();
        return factory(a.getHostString(), a.getPort(), true);
    }

    static String randomName(String prefix) {
        return prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static synchronized void stop() {
        try {
            if (broker != null) {
                broker.stop();
            }
            if (directory != null) {
                try (Stream<Path> files = Files.walk(directory)) {
                    files.sorted(Comparator.reverseOrder())
                            .forEach(p -> p.toFile().delete());
                }
            }
        } catch (Exception e) {
            // The JVM is exiting: a temporary directory left behind is harmless.
        }
    }
}
