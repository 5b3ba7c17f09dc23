package io.txoutbox.jms;

import io.txoutbox.harness.jms.ArtemisBroker;
import java.net.InetSocketAddress;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * The one embedded Artemis broker (the harness's {@link ArtemisBroker}) of this module's test run,
 * started by the first test that asks and stopped when the JVM ends.
 */
final class Artemis {
    static final String FORBIDDEN_PREFIX = ArtemisBroker.FORBIDDEN_PREFIX;

    private static ArtemisBroker broker;

    private Artemis() {}

    static synchronized InetSocketAddress address() {
        if (broker == null) {
            broker = ArtemisBroker.start();
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "artemis-stop"));
        }
        return broker.address();
    }

    /** See {@link ArtemisBroker#factory(String, int, boolean)}: calls give up after 2 s. */
    static ActiveMQConnectionFactory factory(String host, int port, boolean confirmationWindow) {
        return ArtemisBroker.factory(host, port, confirmationWindow);
    }

    /** @return a factory straight to the broker, for test consumers */
    static ActiveMQConnectionFactory direct() {
        InetSocketAddress a = address();
        return factory(a.getHostString(), a.getPort(), true);
    }

    static String randomName(String prefix) {
        return ArtemisBroker.newName(prefix);
    }
}
