package io.txoutbox.server;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.jms.JmsPublisher;
import io.txoutbox.jms.JmsSettings;
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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    /** Property names whose values are never quoted, in errors or anywhere else. */
    private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(password|secret|token|credential|key).*");

    private JmsTransport() {}

    /** How the server makes the provider's {@link ConnectionFactory}. */
    private interface Provider {
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
            provider = customProvider(s.object("connection-factory"));
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
            String describe() {
                return "jms " + target + ", " + (prefix == null ? "" : "prefix '" + prefix + "' + ")
                        + routing.description() + ", bare names are "
                        + checked.destinationType().name().toLowerCase(Locale.ROOT)
                        + "s" + (checked.asyncSend() ? ", asynchronous sends" : "");
            }

            @Override
            Publisher open() {
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
            String check(Duration timeout) throws Exception {
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

    /**
     * Another provider: a public {@link ConnectionFactory} class with a public no-argument constructor,
     * set up through its setters ({@code hostName: mq} calls {@code setHostName("mq")}, converted to the
     * setter's type). Everything is checked here, once, on a factory that is thrown away.
     */
    private static Provider customProvider(ConfigNode c) {
        String className = c.requiredString("class");
        Map<String, String> properties = c.stringMap("properties");
        c.rejectUnknown();
        Class<? extends ConnectionFactory> type = factoryClass(c.key("class"), className);
        Map<String, Method> setters = new LinkedHashMap<>();
        for (String name : properties.keySet()) {
            setters.put(name, setter(c.key("properties") + "." + name, type, name));
        }
        closeQuietly(newFactory(c, type, properties, setters));
        List<String> names = new ArrayList<>(properties.keySet());
        return new Provider() {
            @Override
            public ConnectionFactory factory(Duration callTimeout) {
                return newFactory(c, type, properties, setters);
            }

            @Override
            public String describe() {
                // Property names only: their values may hold credentials.
                return type.getName() + (names.isEmpty() ? "" : " " + names);
            }
        };
    }

    private static Class<? extends ConnectionFactory> factoryClass(String key, String className) {
        Class<?> type;
        try {
            type = Class.forName(className.strip(), false, JmsTransport.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ConfigException(
                    key,
                    "class " + className + " is not on the class path: put the provider's client jar next to the"
                            + " server's (java -cp txoutbox-server.jar:provider.jar " + TxoutboxCli.class.getName()
                            + " run ...)");
        }
        if (!ConnectionFactory.class.isAssignableFrom(type)) {
            throw new ConfigException(key, "class " + className + " is not a jakarta.jms.ConnectionFactory");
        }
        if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())) {
            throw new ConfigException(key, "class " + className + " is not a public, concrete class");
        }
        return type.asSubclass(ConnectionFactory.class);
    }

    private static Method setter(String key, Class<?> type, String property) {
        if (property.isEmpty()) {
            throw new ConfigException(key, "is not a property name");
        }
        String name = "set" + Character.toUpperCase(property.charAt(0)) + property.substring(1);
        Method best = null;
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name)
                    && m.getParameterCount() == 1
                    && !Modifier.isStatic(m.getModifiers())
                    && convertible(m.getParameterTypes()[0])
                    && (best == null || rank(m.getParameterTypes()[0]) < rank(best.getParameterTypes()[0]))) {
                best = m;
            }
        }
        if (best == null) {
            throw new ConfigException(
                    key,
                    type.getName() + " has no public " + name + "(...) taking text, a number, a boolean or an enum");
        }
        return best;
    }

    private static final List<Class<?>> TEXT_TYPES = List.of(
            String.class,
            int.class,
            Integer.class,
            long.class,
            Long.class,
            boolean.class,
            Boolean.class,
            short.class,
            Short.class,
            double.class,
            Double.class,
            float.class,
            Float.class);

    private static boolean convertible(Class<?> t) {
        return TEXT_TYPES.contains(t) || t.isEnum();
    }

    /** Text first, then the narrower number, so that an overloaded setter takes the value as given. */
    private static int rank(Class<?> t) {
        int i = TEXT_TYPES.indexOf(t);
        return i >= 0 ? i : TEXT_TYPES.size();
    }

    private static ConnectionFactory newFactory(
            ConfigNode c,
            Class<? extends ConnectionFactory> type,
            Map<String, String> properties,
            Map<String, Method> setters) {
        ConnectionFactory factory;
        try {
            factory = type.getConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new ConfigException(
                    c.key("class"), "class " + type.getName() + " has no public constructor without arguments");
        } catch (InvocationTargetException e) {
            throw new ConfigException(
                    c.key("class"), "new " + type.getName() + "() failed: " + Transports.reason(e.getCause()));
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new ConfigException(c.key("class"), "new " + type.getName() + "() failed: " + Transports.reason(e));
        }
        for (Map.Entry<String, String> p : properties.entrySet()) {
            String key = c.key("properties") + "." + p.getKey();
            Method setter = setters.get(p.getKey());
            Object value = convert(key, setter.getParameterTypes()[0], p.getKey(), p.getValue());
            try {
                setter.invoke(factory, value);
            } catch (InvocationTargetException e) {
                throw new ConfigException(
                        key,
                        type.getSimpleName() + "." + setter.getName() + " refused the value"
                                + (SECRET_NAME.matcher(p.getKey()).matches()
                                        ? ""
                                        : ": " + Redaction.redact(Transports.reason(e.getCause()))));
            } catch (IllegalAccessException e) {
                throw new ConfigException(key, type.getName() + "." + setter.getName() + " cannot be called");
            }
        }
        return factory;
    }

    private static Object convert(String key, Class<?> t, String property, String text) {
        String v = t == String.class ? text : text.strip();
        String shown = SECRET_NAME.matcher(property).matches() ? "" : ", got '" + v + "'";
        try {
            if (t == String.class) {
                return v;
            }
            if (t == int.class || t == Integer.class) {
                return Integer.valueOf(v);
            }
            if (t == long.class || t == Long.class) {
                return Long.valueOf(v);
            }
            if (t == short.class || t == Short.class) {
                return Short.valueOf(v);
            }
            if (t == double.class || t == Double.class) {
                return Double.valueOf(v);
            }
            if (t == float.class || t == Float.class) {
                return Float.valueOf(v);
            }
        } catch (NumberFormatException e) {
            throw new ConfigException(key, "expected a number (" + t.getSimpleName() + ")" + shown);
        }
        if (t == boolean.class || t == Boolean.class) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> Boolean.TRUE;
                case "false", "no", "off" -> Boolean.FALSE;
                default -> throw new ConfigException(key, "expected true or false" + shown);
            };
        }
        for (Object constant : t.getEnumConstants()) {
            if (((Enum<?>) constant).name().equalsIgnoreCase(v)) {
                return constant;
            }
        }
        List<String> names = new ArrayList<>();
        for (Object constant : t.getEnumConstants()) {
            names.add(((Enum<?>) constant).name());
        }
        throw new ConfigException(key, "expected one of " + names + shown);
    }

    /** Artemis wraps a URL's problem a few times over: its innermost message says what it is. */
    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    private static void closeQuietly(ConnectionFactory factory) {
        if (factory instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // A factory's close releases client-side resources only; nothing is lost if it fails.
            }
        }
    }
}
