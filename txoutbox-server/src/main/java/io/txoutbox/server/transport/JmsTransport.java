package io.txoutbox.server.transport;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.jms.JmsPublisher;
import io.txoutbox.jms.JmsSettings;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.JMSException;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * {@code transport: {jms: ...}}: persistent sends confirmed by the provider, through {@code
 * txoutbox-jms}. The server bundles the ActiveMQ Artemis client; another provider's {@code
 * ConnectionFactory} is named by class and set up by its JavaBean properties.
 *
 * <pre>
 * jms:
 *   broker-url: tcp://artemis.internal:61616     # ActiveMQ Artemis; or connection-factory: below
 *   username: relay
 *   password: ${JMS_PASSWORD}
 *   destination-type: queue                       # or topic: what a bare route names
 *   destination-prefix: outbox.                   # order events go to the queue outbox.order
 *   # another provider, its jar on the class path:
 *   # connection-factory:
 *   #   class: com.ibm.mq.jakarta.jms.MQConnectionFactory
 *   #   properties: {hostName: mq, port: 1414, queueManager: QM1, channel: DEV.APP.SVRCONN, transportType: 1}
 * </pre>
 *
 * <p>{@code destination-type}, {@code sessions}, {@code async-send} and {@code publish-timeout} are the
 * library's settings ({@link JmsSettings}), read through their descriptors and refused by its rules under
 * their keys; the provider, the login and the routing are the server's to read.
 */
final class JmsTransport {
    private static final Pattern CALL_TIMEOUT = Pattern.compile("(?i)[?&]callTimeout=");

    private JmsTransport() {}

    /** How the server makes the provider's {@link ConnectionFactory}. */
    interface Provider {
        /**
         * @param callTimeout how long a provider call may take, where the provider lets the server say so
         * @return a new factory
         */
        ConnectionFactory factory(Duration callTimeout);

        /** @return where it connects, without secrets */
        String describe();
    }

    static Transports.Spec parse(ConfigNode s) {
        String brokerUrl = s.string("broker-url", null);
        boolean custom = s.has("connection-factory");
        if (brokerUrl != null && custom) {
            throw new ConfigException(
                    s.key("connection-factory"),
                    "give broker-url (ActiveMQ Artemis, bundled) or connection-factory (another provider), not both");
        }
        Provider provider;
        if (custom) {
            provider = JmsCustomProvider.of(s.object("connection-factory"));
        } else if (brokerUrl == null || brokerUrl.isBlank()) {
            throw new ConfigException(
                    s.key("broker-url"),
                    "is required: tcp://host:61616 for ActiveMQ Artemis, or connection-factory: {class: ...,"
                            + " properties: {...}} for another provider");
        } else {
            provider = artemis(s.key("broker-url"), brokerUrl);
        }
        String username = s.string("username", null);
        Secret password = s.secret("password");
        if (username != null && password == null) {
            throw new ConfigException(s.key("password"), "is required with username (e.g. password: ${JMS_PASSWORD})");
        }
        if (password != null && username == null) {
            throw new ConfigException(s.key("username"), "is required with password");
        }
        JmsSettings checked;
        try {
            checked = JmsSettings.of(SettingReader.values(s, JmsSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        String prefix = s.string("destination-prefix", null);
        Transports.Routing routing = Transports.Routing.parse(s, "destination");
        Router router = prefix == null ? routing.router() : routing.router().withPrefix(prefix);
        String key = s.path();
        String target = provider.describe() + (username == null ? "" : " as " + username);
        // The builder refuses only the factory (broker-url or connection-factory), login and async-send now.
        Transports.Keys keys = Transports.Keys.of(
                s,
                custom
                        ? Map.of("credentials", "username")
                        : Map.of("connectionFactory", "broker-url", "credentials", "username"));
        return new Transports.Spec("jms", key) {
            @Override
            public String describe() {
                return "jms " + target + ", " + (prefix == null ? "" : "prefix '" + prefix + "' + ")
                        + routing.description() + ", bare names are "
                        + checked.destinationType().name().toLowerCase(Locale.ROOT)
                        + "s" + (checked.asyncSend() ? ", asynchronous sends" : "");
            }

            @Override
            public Publisher open() {
                ConnectionFactory factory = provider.factory(checked.publishTimeout());
                JmsPublisher.Builder b = JmsPublisher.builder()
                        .connectionFactory(factory)
                        .settings(checked)
                        .router(router);
                if (username != null) {
                    b.credentials(username, password.value());
                }
                JmsPublisher publisher;
                try {
                    publisher = b.build();
                } catch (RuntimeException e) {
                    closeQuietly(factory);
                    throw keys.refused(e);
                }
                return new Publisher() {
                    @Override
                    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
                        return publisher.publish(batch);
                    }

                    /** Closes the publisher (its connection), then the factory the server made for it. */
                    @Override
                    public void close() {
                        try {
                            publisher.close();
                        } finally {
                            closeQuietly(factory);
                        }
                    }

                    @Override
                    public String toString() {
                        return publisher.toString();
                    }
                };
            }

            /**
             * Opens a connection, starts it and opens a session, on a thread of its own (a provider's
             * connect may not honour any timeout the server can give it), then closes them: nothing is sent.
             */
            @Override
            public String check(Duration timeout) throws Exception {
                ConnectionFactory factory = provider.factory(timeout);
                CompletableFuture<String> reached = new CompletableFuture<>();
                Thread t = new Thread(
                        () -> {
                            try {
                                reached.complete(connect(factory));
                            } catch (Throwable e) {
                                reached.completeExceptionally(e);
                            } finally {
                                closeQuietly(factory);
                            }
                        },
                        "txoutbox-check-jms");
                t.setDaemon(true);
                t.start();
                try {
                    return reached.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new java.util.concurrent.TimeoutException(
                            "no answer from the JMS provider at " + target + " within " + timeout.toMillis() + " ms");
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }

            private String connect(ConnectionFactory factory) throws JMSException {
                Connection c = username == null
                        ? factory.createConnection()
                        : factory.createConnection(username, password.value());
                try {
                    c.start();
                    Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    session.close();
                    ConnectionMetaData meta = c.getMetaData();
                    return "JMS provider " + meta.getJMSProviderName() + " " + meta.getProviderVersion() + " (JMS "
                            + meta.getJMSVersion() + ") at " + target + ": connection started";
                } finally {
                    c.close();
                }
            }
        };
    }

    /** The bundled ActiveMQ Artemis client, by URL; the URL is checked here, without connecting. */
    private static Provider artemis(String key, String brokerUrl) {
        closeQuietly(artemisFactory(key, brokerUrl, null));
        return new Provider() {
            @Override
            public ConnectionFactory factory(Duration callTimeout) {
                return artemisFactory(key, brokerUrl, callTimeout);
            }

            @Override
            public String describe() {
                return "ActiveMQ Artemis " + Redaction.redact(brokerUrl);
            }
        };
    }

    /**
     * @param callTimeout unless the URL sets {@code callTimeout}: how long a blocking call (a connection's
     *     handshake too) may wait for the broker, instead of Artemis's 30 s
     */
    private static ActiveMQConnectionFactory artemisFactory(String key, String brokerUrl, Duration callTimeout) {
        ActiveMQConnectionFactory f;
        try {
            f = new ActiveMQConnectionFactory(brokerUrl);
        } catch (RuntimeException e) {
            // Not the client's message alone: it may quote the URL with its password.
            throw new ConfigException(
                    key,
                    "'" + Redaction.redact(brokerUrl) + "' is not an ActiveMQ Artemis URL (tcp://host:61616,"
                            + " (tcp://a:61616,tcp://b:61616)?ha=true, ...): " + Redaction.redact(rootMessage(e)));
        }
        if (callTimeout != null && !CALL_TIMEOUT.matcher(brokerUrl).find()) {
            f.setCallTimeout(callTimeout.toMillis());
        }
        return f;
    }

    /** Artemis wraps a URL's problem a few times over: its innermost message says what it is. */
    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    static void closeQuietly(ConnectionFactory factory) {
        if (factory instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // A factory's close releases client-side resources only; nothing is lost if it fails.
            }
        }
    }
}
