package io.txoutbox.server.transport;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The transports a source can route events to, by name. A {@code transport:} section names exactly one
 * of them, with its settings under the name:
 *
 * <pre>
 * transport:
 *   kafka:
 *     bootstrap-servers: broker-1:9092
 * </pre>
 *
 * or just {@code transport: log}. Adding a transport is adding one {@link Factory} to {@link #BUILT_IN}
 * (and its section in the README): it reads its own keys at parse time, builds its publisher with the
 * library's builder in {@link Spec#open()} (mapping the builder's validation errors to its keys, so the
 * rules live once, in the library), and reaches its broker in {@link Spec#check} without publishing.
 */
public final class Transports {

    /** A transport's settings, read and type-checked; {@link #open()} builds the publisher. */
    public abstract static class Spec {
        private final String name;
        private final String key;

        /**
         * @param name the transport's name, e.g. {@code kafka}
         * @param key the key of its settings, e.g. {@code sources[0].routes[1].transport.kafka}
         */
        Spec(String name, String key) {
            this.name = name;
            this.key = key;
        }

        /** @return the transport's name, e.g. {@code kafka} */
        public final String name() {
            return name;
        }

        /** @return the key of its settings, e.g. {@code sources[0].routes[1].transport.kafka} */
        public final String key() {
            return key;
        }

        /** @return a one-line description for the API and logs: targets and routing, never secrets */
        public abstract String describe();

        /**
         * @return a new publisher; the caller closes it
         * @throws ConfigException naming the key when the library's builder refuses a setting
         */
        public abstract Publisher open();

        /**
         * Reaches the broker the way the publisher would (connects, authenticates, looks the exchange or
         * the cluster up), publishes nothing, and disconnects.
         *
         * @param timeout the longest the attempt may take
         * @return what was reached, e.g. {@code Kafka cluster of 1 broker(s) at 127.0.0.1:9092}
         * @throws Exception why it could not be reached (the caller reports it with {@link #key()})
         */
        public abstract String check(Duration timeout) throws Exception;
    }

    /** Reads one transport's settings. */
    interface Factory {
        /**
         * @param settings the mapping under the transport's name (empty when none was given)
         * @return the settings, type-checked; unknown keys are rejected by the caller afterwards
         * @throws ConfigException naming the key at fault
         */
        Spec parse(ConfigNode settings);
    }

    static final Map<String, Factory> BUILT_IN = builtIn();

    private Transports() {}

    private static Map<String, Factory> builtIn() {
        Map<String, Factory> m = new LinkedHashMap<>();
        m.put("log", LogTransport::parse);
        m.put("webhook", WebhookTransport::parse);
        m.put("kafka", KafkaTransport::parse);
        m.put("rabbitmq", RabbitTransport::parse);
        m.put("nats", NatsTransport::parse);
        m.put("redis", RedisTransport::parse);
        m.put("mqtt", MqttTransport::parse);
        m.put("sqs", SqsTransport::parse);
        m.put("jms", JmsTransport::parse);
        return Map.copyOf(m);
    }

    /** @return the bundled transports' names, in the order of the README */
    static List<String> names() {
        return List.of("log", "webhook", "kafka", "rabbitmq", "nats", "redis", "mqtt", "sqs", "jms");
    }

    /**
     * Reads the {@code transport:} under a key: a name alone, or a mapping with exactly one key naming the
     * transport.
     */
    public static Spec parse(ConfigNode parent, String key) {
        String fullKey = parent.key(key);
        if (parent.isScalar(key)) {
            String name = parent.requiredString(key);
            return factory(fullKey, name).parse(ConfigNode.empty(fullKey + "." + name));
        }
        ConfigNode t = parent.object(key);
        List<String> names = t.keys();
        if (names.size() != 1) {
            throw new ConfigException(
                    fullKey,
                    "name exactly one transport (one of " + String.join(", ", names()) + "), found "
                            + (names.isEmpty() ? "none" : String.join(", ", names)));
        }
        String name = names.get(0);
        ConfigNode settings = t.isScalar(name) ? null : t.object(name);
        if (settings == null) {
            throw new ConfigException(t.key(name), "expected the transport's settings as a mapping, or {}");
        }
        Spec spec = factory(t.key(name), name).parse(settings);
        settings.rejectUnknown();
        return spec;
    }

    private static Factory factory(String key, String name) {
        Factory f = BUILT_IN.get(name);
        if (f != null) {
            return f;
        }
        throw new ConfigException(key, "unknown transport '" + name + "'; available: " + String.join(", ", names()));
    }

    // ---- shared by the broker transports ----

    /**
     * Where events without a destination of their own go: {@code route-by: aggregate-type} (the
     * default), {@code route-by: event-type}, or one fixed {@code destination:}. An event's own
     * {@code destination} column always wins, as in the library.
     *
     * @param router the rule
     * @param description how it reads in the API, e.g. {@code by aggregate type}
     */
    record Routing(Router router, String description) {
        static Routing parse(ConfigNode s, String what) {
            String by = s.string("route-by", null);
            String fixed = s.string("destination", null);
            if (by != null && fixed != null) {
                throw new ConfigException(
                        s.key("destination"),
                        "give route-by or destination, not both (destination is one " + what + " for every event)");
            }
            if (fixed != null) {
                if (fixed.isBlank()) {
                    throw new ConfigException(s.key("destination"), "is blank; name the " + what + ", or leave it out");
                }
                return new Routing(Router.fixed(fixed), what + " '" + fixed + "'");
            }
            String rule = by == null ? "aggregate-type" : by.strip();
            return switch (rule) {
                case "aggregate-type" -> new Routing(Router.BY_AGGREGATE_TYPE, what + " by aggregate type");
                case "event-type" -> new Routing(Router.BY_EVENT_TYPE, what + " by event type");
                default ->
                    throw new ConfigException(
                            s.key("route-by"), "expected aggregate-type or event-type, got '" + by + "'");
            };
        }
    }

    /**
     * The keys of one transport's settings, to name the one a library builder refuses: a builder field is
     * the key of its kebab-case name when the section has that key ({@code topicPrefix} is {@code
     * topic-prefix}), else the key it is {@code renamed} to ({@code credentials} is {@code username}); the
     * router is {@code route-by}. A field the section has no key for is reported under the section.
     *
     * @param section the transport's settings key, {@code sources[0].routes[1].transport.kafka}
     * @param known the keys the transport reads
     * @param renamed builder fields whose key is not their kebab-case name
     */
    record Keys(String section, Set<String> known, Map<String, String> renamed) {
        Keys {
            known = Set.copyOf(known);
            Map<String, String> all = new HashMap<>(Map.of("router", "route-by"));
            all.putAll(renamed);
            renamed = Map.copyOf(all);
        }

        /**
         * @param settings the transport's settings, once every key is read
         * @param renamed builder fields whose key is not their kebab-case name
         */
        static Keys of(ConfigNode settings, Map<String, String> renamed) {
            return new Keys(settings.path(), settings.readKeys(), renamed);
        }

        /**
         * Maps a library builder's refusal to the key of the setting it names: an {@link
         * OutboxValidationException} carries its {@link OutboxValidationException#field() field}; any other
         * refusal is reported under the transport's section. The message is the builder's, never read.
         *
         * @param e the builder's exception
         * @return the error, naming the key
         */
        ConfigException refused(RuntimeException e) {
            String field = e instanceof OutboxValidationException v ? v.field() : null;
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            String sub = field == null ? null : key(field.substring(field.lastIndexOf('.') + 1));
            return new ConfigException(sub == null ? section : section + "." + sub, message, e);
        }

        /**
         * @param builder builds the transport's publisher with its library's builder
         * @return the publisher
         * @throws ConfigException naming the key of the setting the builder refuses
         */
        Publisher build(Supplier<? extends Publisher> builder) {
            try {
                return builder.get();
            } catch (RuntimeException e) {
                throw refused(e);
            }
        }

        private String key(String field) {
            String kebab = field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
            return known.contains(kebab) ? kebab : renamed.get(field);
        }
    }

    /** @return a short, secret-free description of why a check failed */
    public static String reason(Throwable e) {
        Throwable t = e;
        while ((t instanceof java.util.concurrent.ExecutionException
                        || t instanceof java.util.concurrent.CompletionException
                        || t instanceof java.lang.reflect.UndeclaredThrowableException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        String message = t.getMessage();
        if ((message == null || message.isBlank()) && t.getCause() != null && t.getCause() != t) {
            message = t.getCause().getMessage();
        }
        return t.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
