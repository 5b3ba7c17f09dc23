package io.txoutbox.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxSettings;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.server.transport.Transports;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.server.yaml.YamlTree;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads and validates the YAML configuration. Every string value may hold {@code ${NAME}} or {@code
 * ${NAME:-default}} placeholders, replaced by environment variables; every error names its key.
 */
public final class ConfigLoader {
    static final int MIN_TOKEN_LENGTH = 16;
    private static final Pattern SOURCE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,48}");

    private ConfigLoader() {}

    /**
     * @param file the YAML file
     * @param env the environment, for placeholders
     * @return the validated configuration
     * @throws ConfigException naming the key at fault
     */
    public static ServerConfig load(Path file, Function<String, String> env) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException("--config", "file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("--config", "cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(text, env);
    }

    /**
     * @param yaml the configuration's text ({@link YamlTree}: every value as typed, no aliases, each key
     *     once)
     * @param env the environment, for placeholders
     * @return the validated configuration
     * @throws ConfigException naming the key at fault (or {@code (file)} and the line of a YAML error)
     */
    public static ServerConfig parse(String yaml, Function<String, String> env) {
        JsonNode tree = YamlTree.read(yaml);
        ConfigNode root = ConfigNode.root(tree, env);
        ServerConfig.Admin admin = admin(root.object("admin"));
        List<ConfigNode> items = root.objects("sources");
        if (items.isEmpty()) {
            throw new ConfigException("sources", "is required: at least one source (jdbc-url, table, transport)");
        }
        List<ServerConfig.Source> sources = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ConfigNode item : items) {
            ServerConfig.Source s = source(item);
            if (!names.add(s.name())) {
                throw new ConfigException(
                        item.key("name"), "'" + s.name() + "' is used by two sources; names must be unique");
            }
            sources.add(s);
        }
        ServerConfig.Startup startup = startup(root.object("startup"));
        root.rejectUnknown();
        return new ServerConfig(admin, sources, startup);
    }

    private static ServerConfig.Admin admin(ConfigNode a) {
        String host = a.string("host", "127.0.0.1");
        int port = a.integer("port", 8080, 0, 65_535);
        Secret token = a.secret("token");
        if (token == null || token.value().isBlank()) {
            throw new ConfigException(
                    a.key("token"),
                    "is required: every admin route needs it (e.g. token: ${TXOUTBOX_ADMIN_TOKEN}, at least "
                            + MIN_TOKEN_LENGTH + " characters)");
        }
        if (token.value().length() < MIN_TOKEN_LENGTH) {
            throw new ConfigException(
                    a.key("token"),
                    "is " + token.value().length() + " characters; it must be at least " + MIN_TOKEN_LENGTH
                            + " (generate one with: openssl rand -hex 24)");
        }
        boolean dashboard = a.bool("dashboard", true);
        ServerConfig.Limits d = ServerConfig.Limits.DEFAULT;
        Duration requestTimeout = between(a, "request-timeout", d.requestTimeout(), Duration.ofMillis(100));
        Duration idleTimeout = between(a, "idle-timeout", d.idleTimeout(), Duration.ofMillis(100));
        int maxConnections = a.integer("max-connections", d.maxConnections(), 8, 100_000);
        int maxIncomplete = a.integer(
                "max-incomplete-requests",
                ServerConfig.Limits.defaultMaxIncomplete(maxConnections),
                1,
                maxConnections - 1);
        int maxIncompletePerClient = a.integer(
                "max-incomplete-requests-per-client",
                ServerConfig.Limits.defaultMaxIncompletePerClient(maxIncomplete),
                1,
                maxIncomplete);
        int maxEventTypes = a.integer("max-event-types", d.maxEventTypes(), 1, 10_000);
        a.rejectUnknown();
        return new ServerConfig.Admin(
                host,
                port,
                token,
                dashboard,
                new ServerConfig.Limits(
                        requestTimeout,
                        idleTimeout,
                        maxConnections,
                        maxIncomplete,
                        maxIncompletePerClient,
                        maxEventTypes));
    }

    private static ServerConfig.Startup startup(ConfigNode s) {
        ServerConfig.Startup d = ServerConfig.Startup.DEFAULT;
        boolean retry = s.bool("retry", d.retry());
        Duration maxBackoff = between(s, "max-backoff", d.maxBackoff(), Duration.ofMillis(100));
        s.rejectUnknown();
        return new ServerConfig.Startup(retry, maxBackoff);
    }

    /** A duration of at least {@code min} and at most a day. */
    private static Duration between(ConfigNode n, String key, Duration def, Duration min) {
        Duration d = n.duration(key, def);
        if (d.compareTo(min) < 0 || d.compareTo(Duration.ofDays(1)) > 0) {
            throw new ConfigException(n.key(key), "must be between " + min.toMillis() + "ms and 1d, not " + d);
        }
        return d;
    }

    /**
     * The outbox settings a source sets under their own keys; ordered mode has the server's shape
     * ({@code ordered}, {@code dead-head}). An outbox of the server appends nothing, so its append settings
     * are not among them, nor change-data-capture mode, which has no relay.
     */
    static final List<Setting<?>> SOURCE_SETTINGS = List.of(
            OutboxSettings.TABLE,
            OutboxSettings.CREATE_SCHEMA,
            OutboxSettings.FOREIGN_WRITER_WAKEUPS,
            OutboxSettings.PUBLISHED_PARTITIONS,
            OutboxSettings.FAIR_CLAIMS);

    private static ServerConfig.Source source(ConfigNode s) {
        String name = s.requiredString("name");
        if (!SOURCE_NAME.matcher(name).matches()) {
            throw new ConfigException(s.key("name"), "'" + name + "' must be 1 to 48 letters, digits, '.', '_' or '-'");
        }
        String url = s.requiredString("jdbc-url");
        checkJdbcUrl(s.key("jdbc-url"), url);
        String user = s.string("user", null);
        Secret password = s.secret("password");
        String dialect = s.string("dialect", "auto").toLowerCase(Locale.ROOT);
        if (!dialect.equals("auto")) {
            try {
                Dialect.named(dialect);
            } catch (OutboxException e) {
                throw new ConfigException(
                        s.key("dialect"), "'" + dialect + "' is unknown; use auto, postgresql, mariadb, mysql or h2");
            }
        }
        boolean ordered = s.bool("ordered", false);
        String deadHead = s.string("dead-head", null);
        DeadHeadPolicy policy = null;
        if (deadHead != null && !ordered) {
            throw new ConfigException(s.key("dead-head"), "only applies with ordered: true");
        }
        if (ordered) {
            String p = deadHead == null ? "block" : deadHead.toLowerCase(Locale.ROOT);
            policy = switch (p) {
                case "block" -> DeadHeadPolicy.BLOCK;
                case "skip" -> DeadHeadPolicy.SKIP;
                default ->
                    throw new ConfigException(s.key("dead-head"), "expected block or skip, got '" + deadHead + "'");
            };
        }
        OutboxSettings outbox = outbox(s, dialect, policy);
        ServerConfig.Relay relay = relay(s.object("relay"), s.path(), name);
        int poolSize = s.integer("pool-size", Math.min(100, defaultPoolSize(relay)), 2, 100);
        if (poolSize < relay.instances() + 1) {
            throw new ConfigException(
                    s.key("pool-size"),
                    poolSize + " is too small for " + relay.instances()
                            + " relay instances; give at least instances + 1 (a relay may hold one connection to listen)");
        }
        Duration connectTimeout = s.duration("connect-timeout", Duration.ofSeconds(10));
        if (connectTimeout.toMillis() < 250) {
            throw new ConfigException(s.key("connect-timeout"), "must be at least 250ms");
        }
        List<ServerConfig.Route> routes = routes(s);
        s.rejectUnknown();
        return new ServerConfig.Source(
                name, url, user, password, dialect, outbox, poolSize, connectTimeout, relay, routes);
    }

    /**
     * Reads a source's outbox settings through the library's descriptors ({@link #SOURCE_SETTINGS}, and
     * ordered mode from the server's own {@code ordered} and {@code dead-head}) and checks them with the
     * library's rules, which name a refused setting by its key here ({@code sources[0].published-partitions}).
     */
    private static OutboxSettings outbox(ConfigNode s, String dialect, DeadHeadPolicy ordered) {
        SettingValues values = SettingReader.values(s, SOURCE_SETTINGS).set(OutboxSettings.ORDERED, ordered);
        Spelling spelling = Spelling.keys(s.path()).except(Map.of(OutboxSettings.ORDERED, s.key("ordered")));
        try {
            return OutboxSettings.of(
                    values,
                    OutboxTable.Columns.DEFAULT,
                    dialect.equals("auto") ? null : Dialect.named(dialect),
                    spelling);
        } catch (OutboxValidationException e) {
            throw ConfigException.refused(e);
        }
    }

    /**
     * @return what the relay instances hold at once with their settings (the library's count, pipelining
     *     and the listening connection included), and one for the admin API's queries
     */
    private static int defaultPoolSize(ServerConfig.Relay relay) {
        RelaySettings r = relay.settings();
        return relay.instances() * Relay.Builder.connectionsAtOnce(r.maxInFlightBatches(), r.listen()) + 1;
    }

    private static void checkJdbcUrl(String key, String url) {
        if (!url.startsWith("jdbc:")) {
            throw new ConfigException(
                    key, "'" + Redaction.redact(url) + "' is not a JDBC URL (jdbc:postgresql://host:5432/db)");
        }
        try {
            DriverManager.getDriver(url);
        } catch (RuntimeException e) {
            // A driver that fails on the URL instead of declining it (pgjdbc on jdbc:postgresql://,/db); its
            // message is not quoted, as a driver's may quote the URL's password.
            throw new ConfigException(
                    key,
                    "the JDBC driver cannot read '" + Redaction.redact(url) + "' ("
                            + e.getClass().getSimpleName() + "); check its host list and syntax");
        } catch (SQLException e) {
            throw new ConfigException(
                    key,
                    "no bundled JDBC driver accepts '" + Redaction.redact(url)
                            + "'; supported: jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:, jdbc:h2:");
        }
    }

    /**
     * Reads a source's relay settings through the library's descriptors ({@link RelaySettings#SETTINGS},
     * {@link Backoff#SETTINGS}) and checks them with the library's rules, which name a refused setting by
     * its key here ({@code sources[0].relay.batch-size}; the name is the source's, {@code sources[0].name}).
     */
    private static ServerConfig.Relay relay(ConfigNode r, String sourceKey, String name) {
        int instances = r.integer("instances", 1, 1, 16);
        List<Setting<?>> keys = RelaySettings.SETTINGS.stream()
                .filter(s -> s != RelaySettings.NAME)
                .toList();
        SettingValues values = SettingReader.values(r, keys).set(RelaySettings.NAME, name);
        ConfigNode b = r.object("backoff");
        SettingValues backoff = SettingReader.values(b, Backoff.SETTINGS);
        b.rejectUnknown();
        r.rejectUnknown();
        try {
            Backoff checkedBackoff = Backoff.of(backoff, Spelling.keys(b.path()));
            Spelling spelling = Spelling.keys(r.path()).except(Map.of(RelaySettings.NAME, sourceKey + ".name"));
            return new ServerConfig.Relay(instances, RelaySettings.of(values, checkedBackoff, spelling));
        } catch (OutboxValidationException e) {
            throw ConfigException.refused(e);
        }
    }

    private static List<ServerConfig.Route> routes(ConfigNode s) {
        boolean hasTransport = s.has("transport");
        boolean hasRoutes = s.has("routes");
        if (hasTransport && hasRoutes) {
            throw new ConfigException(
                    s.key("routes"), "give either transport (every event) or routes (by event type), not both");
        }
        if (!hasTransport && !hasRoutes) {
            throw new ConfigException(
                    s.key("transport"),
                    "is required: where events go, e.g. transport: log, or transport: {webhook: {endpoints: [...]}}"
                            + " (or routes: by event type)");
        }
        List<ServerConfig.Route> routes = new ArrayList<>();
        if (hasTransport) {
            Transports.Spec spec = Transports.parse(s, "transport");
            routes.add(new ServerConfig.Route(s.key("transport"), spec.name(), List.of("*"), spec));
            return routes;
        }
        List<ConfigNode> items = s.objects("routes");
        if (items.isEmpty()) {
            throw new ConfigException(s.key("routes"), "is empty: give at least one route with types and transport");
        }
        List<String> givenNames = new ArrayList<>();
        List<Transports.Spec> specs = new ArrayList<>();
        List<List<String>> typeLists = new ArrayList<>();
        for (ConfigNode r : items) {
            List<String> types = r.strings("types");
            if (types.isEmpty()) {
                throw new ConfigException(r.key("types"), "is required: exact types, prefixes ending in *, or *");
            }
            for (int i = 0; i < types.size(); i++) {
                String t = types.get(i);
                if (t.isBlank() || (t.contains("*") && t.indexOf('*') != t.length() - 1)) {
                    throw new ConfigException(
                            r.key("types") + "[" + i + "]",
                            "'" + t + "' is invalid; give an exact type or a prefix ending in *");
                }
            }
            String name = r.string("name", null);
            if (name != null && !SOURCE_NAME.matcher(name).matches()) {
                throw new ConfigException(
                        r.key("name"), "'" + name + "' must be 1 to 48 letters, digits, '.', '_' or '-'");
            }
            if (!r.has("transport")) {
                throw new ConfigException(r.key("transport"), "is required");
            }
            Transports.Spec spec = Transports.parse(r, "transport");
            r.rejectUnknown();
            givenNames.add(name);
            specs.add(spec);
            typeLists.add(types);
        }
        Set<String> used = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            String name = givenNames.get(i);
            if (name == null) {
                // The transport's name when it is the only route to it, else the name and the route's number.
                String transport = specs.get(i).name();
                long same =
                        specs.stream().filter(x -> x.name().equals(transport)).count();
                name = same == 1 ? transport : transport + "-" + (i + 1);
            }
            if (!used.add(name)) {
                throw new ConfigException(
                        items.get(i).key("name"),
                        "'" + name + "' names two routes of this source; names must be unique");
            }
            routes.add(new ServerConfig.Route(items.get(i).path(), name, typeLists.get(i), specs.get(i)));
        }
        return routes;
    }
}
