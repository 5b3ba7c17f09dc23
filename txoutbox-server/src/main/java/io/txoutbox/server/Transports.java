package io.txoutbox.server;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.Publisher;
import io.txoutbox.webhook.WebhookEndpoint;
import io.txoutbox.webhook.WebhookPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The transports a source can route events to, by name. A {@code transport:} section names exactly one
 * of them, with its settings under the name:
 *
 * <pre>
 * transport:
 *   webhook:
 *     endpoints: [...]
 * </pre>
 *
 * or just {@code transport: log}. Adding a broker is adding a {@link Factory} to {@link #BUILT_IN}: it
 * reads its own settings (and rejects unknown keys), and opens a {@link Publisher} at start-up.
 */
final class Transports {

    /** A transport's validated settings; {@link #open()} creates the publisher. */
    interface Spec {
        /** @return the transport's name, e.g. {@code webhook} */
        String name();

        /** @return a one-line description for the API and logs: targets, never secrets */
        String describe();

        /**
         * @return a new publisher; the caller closes it
         * @throws ConfigException when the transport refuses the settings at build time
         */
        Publisher open();
    }

    /** Reads one transport's settings. */
    interface Factory {
        /**
         * @param settings the mapping under the transport's name (empty when none was given)
         * @return the validated settings
         * @throws ConfigException naming the key at fault
         */
        Spec parse(ConfigNode settings);
    }

    static final Map<String, Factory> BUILT_IN = builtIn();

    /** Brokers with a txoutbox transport module that this server does not bundle yet. */
    static final Set<String> PLANNED = Set.of("kafka", "rabbitmq", "nats", "redis", "mqtt");

    private Transports() {}

    private static Map<String, Factory> builtIn() {
        Map<String, Factory> m = new LinkedHashMap<>();
        m.put("log", Transports::log);
        m.put("webhook", Transports::webhook);
        return Map.copyOf(m);
    }

    /**
     * Reads the {@code transport:} under a key: a name alone, or a mapping with exactly one key naming the
     * transport.
     */
    static Spec parse(ConfigNode parent, String key) {
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
                    "name exactly one transport (one of " + String.join(", ", BUILT_IN.keySet()) + "), found "
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
        if (PLANNED.contains(name)) {
            throw new ConfigException(
                    key,
                    "transport '" + name + "' is not bundled with this server yet; available: "
                            + String.join(", ", BUILT_IN.keySet()));
        }
        throw new ConfigException(
                key, "unknown transport '" + name + "'; available: " + String.join(", ", BUILT_IN.keySet()));
    }

    private static Spec log(ConfigNode settings) {
        String level = settings.string("level", "info");
        if (!level.equals("info") && !level.equals("debug")) {
            throw new ConfigException(settings.key("level"), "expected info or debug, got '" + level + "'");
        }
        boolean debug = level.equals("debug");
        return new Spec() {
            @Override
            public String name() {
                return "log";
            }

            @Override
            public String describe() {
                return "log (event ids and types at " + level + ", never payloads)";
            }

            @Override
            public Publisher open() {
                return new LogSink(debug);
            }
        };
    }

    private static Spec webhook(ConfigNode settings) {
        boolean allowPrivate = settings.bool("allow-private-networks", false);
        Duration connectTimeout = settings.duration("connect-timeout", Duration.ofSeconds(5));
        Duration requestTimeout = settings.duration("request-timeout", Duration.ofSeconds(10));
        int maxConcurrent = settings.integer("max-concurrent-requests", 16, 1, 10_000);
        List<ConfigNode> items = settings.objects("endpoints");
        if (items.isEmpty()) {
            throw new ConfigException(
                    settings.key("endpoints"), "is required: at least one endpoint with url and secret");
        }
        List<WebhookEndpoint> endpoints = new ArrayList<>();
        List<String> described = new ArrayList<>();
        for (ConfigNode e : items) {
            String url = e.requiredString("url");
            WebhookEndpoint.Builder b = WebhookEndpoint.builder(url);
            String name = e.string("name", null);
            if (name != null) {
                b.name(name);
            }
            List<String> secrets = new ArrayList<>();
            Secret one = e.secret("secret");
            if (one != null) {
                secrets.add(one.value());
            }
            for (String s : e.strings("secrets")) {
                secrets.add(s);
            }
            if (secrets.isEmpty()) {
                throw new ConfigException(e.key("secret"), "is required: every webhook is signed (whsec_<base64>)");
            }
            secrets.forEach(b::secret);
            List<String> types = e.strings("event-types");
            if (!types.isEmpty()) {
                b.eventTypes(types.toArray(String[]::new));
            }
            e.stringMap("headers").forEach(b::header);
            e.rejectUnknown();
            WebhookEndpoint endpoint;
            try {
                endpoint = b.build();
            } catch (OutboxValidationException ex) {
                throw new ConfigException(e.key(endpointKey(ex.field())), ex.getMessage(), ex);
            }
            endpoints.add(endpoint);
            described.add(endpoint.name() + " " + endpoint.url().getScheme() + "://"
                    + endpoint.url().getAuthority() + endpoint.url().getPath() + " " + endpoint.eventTypes());
        }
        String key = settings.path();
        return new Spec() {
            @Override
            public String name() {
                return "webhook";
            }

            @Override
            public String describe() {
                return "webhook " + described;
            }

            @Override
            public Publisher open() {
                try {
                    return WebhookPublisher.builder()
                            .endpoints(endpoints)
                            .allowPrivateNetworks(allowPrivate)
                            .connectTimeout(connectTimeout)
                            .requestTimeout(requestTimeout)
                            .maxConcurrentRequests(maxConcurrent)
                            .build();
                } catch (OutboxValidationException ex) {
                    String field = ex.field() == null ? "" : ex.field();
                    String sub = field.endsWith("allowPrivateNetworks")
                            ? ".allow-private-networks"
                            : field.endsWith("endpoint") ? ".endpoints" : "";
                    throw new ConfigException(key + sub, ex.getMessage(), ex);
                }
            }
        };
    }

    private static String endpointKey(String field) {
        if (field == null) {
            return "url";
        }
        if (field.contains("secret")) {
            return "secret";
        }
        if (field.endsWith(".eventTypes")) {
            return "event-types";
        }
        if (field.endsWith(".name")) {
            return "name";
        }
        if (field.toLowerCase(Locale.ROOT).contains("header")) {
            return "headers";
        }
        return "url";
    }
}
