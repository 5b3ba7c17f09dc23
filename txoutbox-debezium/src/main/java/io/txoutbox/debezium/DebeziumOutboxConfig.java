package io.txoutbox.debezium;

import io.txoutbox.Identifiers;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The Debezium PostgreSQL connector's configuration for an outbox table, generated from the outbox's
 * column mapping so that nothing is guessed: the outbox event router reads the event id, the key
 * (aggregate id), the route (aggregate type, or {@code destination}), the payload ({@code bytea}, written
 * as raw bytes by Debezium's {@code BinaryDataConverter}), and places the event type, version, tenant,
 * content type and the headers column as message headers with the names txoutbox's transports use.
 *
 * <pre>{@code
 * DebeziumOutboxConfig config = DebeziumOutboxConfig.builder(outbox)
 *         .database("db.example.com", 5432, "shop", "debezium", "${file:/secrets/pg.properties:password}")
 *         .build();
 * String json = config.kafkaConnectJson("orders-outbox");      // POST to Kafka Connect's /connectors
 * String props = config.debeziumServerProperties();           // Debezium Server's application.properties
 * DebeziumOutboxConfig.verify(outboxTable, myConnectorConfig); // names the column a config gets wrong
 * }</pre>
 *
 * <p>The connector only streams inserts ({@code skipped.operations=u,d,t}): the relay's lease updates
 * and deletes, and the deletes of {@link Outbox.Builder#changeDataCapture change-data-capture mode}, never
 * reach the router, so no tombstone is written. It reads a publication and a replication slot created
 * beforehand ({@link #createPublicationSql()}, {@link #createSlotSql()}), which is what makes the switch
 * from a relay lossless: the slot fixes the point from which every commit is streamed. Snapshots are off
 * ({@code snapshot.mode=no_data}): rows older than the slot are the relay's to publish.
 */
public final class DebeziumOutboxConfig {
    /** The class of Debezium's outbox event router. */
    public static final String EVENT_ROUTER = "io.debezium.transforms.outbox.EventRouter";

    /** The converter that writes the {@code bytea} payload as the record's raw bytes. */
    public static final String BINARY_CONVERTER = "io.debezium.converters.BinaryDataConverter";

    /** The header that carries the headers column (a JSON object of the event's own headers). */
    public static final String HEADERS_HEADER = "txoutbox-headers";

    /** The transform alias used in generated configurations. */
    static final String ALIAS = "outbox";

    private static final Set<String> BINARY_CONVERTERS = Set.of(
            BINARY_CONVERTER,
            "io.debezium.converters.ByteArrayConverter",
            "io.debezium.converters.ByteBufferConverter",
            "org.apache.kafka.connect.converters.ByteArrayConverter");

    /** The columns of the table that are not mappable, as the DDL names them. */
    private static final List<String> FIXED_COLUMNS = List.of(
            "seq",
            "event_version",
            "content_type",
            "headers",
            "tenant_id",
            "destination",
            "created_at",
            "available_at",
            "status",
            "attempts",
            "max_attempts",
            "lease_owner",
            "lease_expires_at",
            "last_error",
            "published_at");

    private final OutboxTable table;
    private final Map<String, String> connector;
    private final Map<String, String> database;

    private DebeziumOutboxConfig(Builder b) {
        this.table = b.table;
        this.database = Collections.unmodifiableMap(new LinkedHashMap<>(b.database));
        OutboxTable.Columns c = b.table.columns();
        String routeColumn = b.routeByDestination ? "destination" : c.aggregateType();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        m.put("plugin.name", "pgoutput");
        m.put("slot.name", b.slotName);
        m.put("publication.name", b.publicationName);
        m.put("publication.autocreate.mode", "disabled");
        m.put("snapshot.mode", "no_data");
        m.put("table.include.list", b.schema + "\\." + b.table.name());
        m.put("skipped.operations", "u,d,t");
        m.put("tombstones.on.delete", "false");
        m.put("binary.handling.mode", "bytes");
        m.put("topic.prefix", b.topicPrefix);
        m.put("transforms", ALIAS);
        m.put(router("type"), EVENT_ROUTER);
        m.put(router("table.field.event.id"), c.id());
        m.put(router("table.field.event.key"), c.aggregateId());
        m.put(router("table.field.event.payload"), c.payload());
        m.put(router("route.by.field"), routeColumn);
        m.put(router("route.topic.replacement"), b.topicReplacement);
        m.put(router("route.tombstone.on.empty.payload"), "false");
        m.put(
                router("table.fields.additional.placement"),
                String.join(
                        ",",
                        c.id() + ":header:event-id",
                        c.eventType() + ":header:event-type",
                        "event_version:header:event-version",
                        c.aggregateType() + ":header:aggregate-type",
                        c.aggregateId() + ":header:aggregate-id",
                        "tenant_id:header:tenant-id",
                        "content_type:header:content-type",
                        "headers:header:" + HEADERS_HEADER));
        this.connector = Collections.unmodifiableMap(m);
    }

    private static String router(String key) {
        return "transforms." + ALIAS + "." + key;
    }

    /**
     * @param table the outbox table and its column mapping
     * @return a builder of the configuration for that table
     */
    public static Builder builder(OutboxTable table) {
        return new Builder(Objects.requireNonNull(table, "table"));
    }

    /**
     * @param outbox an outbox: its table and column mapping are used
     * @return a builder of the configuration for the outbox's table
     */
    public static Builder builder(Outbox outbox) {
        return builder(Objects.requireNonNull(outbox, "outbox").outboxTable());
    }

    /**
     * @return the connector's and the router's properties, without the database connection and the
     *     converters: what every runtime shares
     */
    public Map<String, String> connectorProperties() {
        return connector;
    }

    /**
     * @return the properties of a Kafka Connect connector: the database connection, {@link
     *     #connectorProperties()}, a string key and the payload as raw bytes
     */
    public Map<String, String> kafkaConnectProperties() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connector.class", connector.get("connector.class"));
        m.putAll(database);
        m.putAll(connector);
        m.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        m.put("value.converter", BINARY_CONVERTER);
        // Records that are not outbox events (heartbeats) have no bytes value: JSON for those.
        m.put("value.converter.delegate.converter.type", "org.apache.kafka.connect.json.JsonConverter");
        m.put("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
        return Collections.unmodifiableMap(m);
    }

    /**
     * @param connectorName the connector's name in Kafka Connect
     * @return the JSON to {@code POST} to Kafka Connect's {@code /connectors}
     */
    public String kafkaConnectJson(String connectorName) {
        StringBuilder json = new StringBuilder("{\n  \"name\": ")
                .append(quote(connectorName))
                .append(",\n  \"config\": {\n");
        List<Map.Entry<String, String>> entries =
                new ArrayList<>(kafkaConnectProperties().entrySet());
        for (int i = 0; i < entries.size(); i++) {
            json.append("    ")
                    .append(quote(entries.get(i).getKey()))
                    .append(": ")
                    .append(quote(entries.get(i).getValue()))
                    .append(i + 1 < entries.size() ? ",\n" : "\n");
        }
        return json.append("  }\n}\n").toString();
    }

    /**
     * @return Debezium Server's {@code application.properties} for the source, the router and the formats
     *     (the sink, {@code debezium.sink.*}, is yours to add)
     */
    public String debeziumServerProperties() {
        StringBuilder p = new StringBuilder();
        Map<String, String> source = new LinkedHashMap<>();
        source.put("connector.class", connector.get("connector.class"));
        source.putAll(database);
        connector.forEach((k, v) -> {
            if (!k.startsWith("transforms")) {
                source.put(k, v);
            }
        });
        source.put("offset.storage.file.filename", "data/offsets.dat");
        source.forEach((k, v) -> p.append("debezium.source.")
                .append(k)
                .append('=')
                .append(escapeProperty(v))
                .append('\n'));
        // Debezium Server's configuration expands ${...} itself: the route goes in as the regex group $1
        // (the router's route.topic.regex is (?<routedByValue>.*)), which means the same to the router.
        connector.forEach((k, v) -> {
            if (k.startsWith("transforms")) {
                String value = k.endsWith(".route.topic.replacement") ? v.replace("${routedByValue}", "$1") : v;
                p.append("debezium.")
                        .append(k)
                        .append('=')
                        .append(escapeProperty(value))
                        .append('\n');
            }
        });
        p.append("debezium.format.key=simplestring\n");
        p.append("debezium.format.value=binary\n");
        p.append("debezium.format.value.delegate.converter.type=org.apache.kafka.connect.json.JsonConverter\n");
        p.append("debezium.format.header=json\n");
        p.append("debezium.format.header.schemas.enable=false\n");
        return p.toString();
    }

    /**
     * The publication the connector reads; create it before the slot (see the module's README for the
     * whole switch procedure).
     *
     * @return {@code CREATE PUBLICATION} for the outbox table, inserts only
     */
    public String createPublicationSql() {
        return "CREATE PUBLICATION " + connector.get("publication.name") + " FOR TABLE " + qualified()
                + " WITH (publish = 'insert')";
    }

    /**
     * The replication slot the connector streams from: every transaction that commits after it is created
     * reaches the connector, whenever the connector starts.
     *
     * @return a query that creates the slot with the {@code pgoutput} plugin
     */
    public String createSlotSql() {
        return "SELECT pg_create_logical_replication_slot('" + connector.get("slot.name") + "', 'pgoutput')";
    }

    /** @return the statements that remove the slot and the publication once the connector is retired */
    public List<String> dropSql() {
        return List.of(
                "SELECT pg_drop_replication_slot('" + connector.get("slot.name") + "')",
                "DROP PUBLICATION IF EXISTS " + connector.get("publication.name"));
    }

    private String qualified() {
        String include = connector.get("table.include.list");
        return include.replace("\\.", ".");
    }

    /** @return the table this configuration is for */
    public OutboxTable table() {
        return table;
    }

    /**
     * Checks a connector configuration (Kafka Connect keys, or Debezium Server's with their {@code
     * debezium.source.} and {@code debezium.} prefixes) against an outbox table's column mapping.
     *
     * @param table the outbox table and its column mapping
     * @param config the connector's configuration
     * @return one message per problem, each naming the setting and the column; empty when it fits
     */
    public static List<String> check(OutboxTable table, Map<String, String> config) {
        Map<String, String> c = normalize(config);
        List<String> problems = new ArrayList<>();
        String alias = null;
        for (String a : c.getOrDefault("transforms", "").split(",")) {
            if (EVENT_ROUTER.equals(c.get("transforms." + a.strip() + ".type"))) {
                alias = a.strip();
            }
        }
        if (alias == null) {
            problems.add("no outbox event router: 'transforms' names no transform whose type is " + EVENT_ROUTER);
            return problems;
        }
        OutboxTable.Columns cols = table.columns();
        String p = "transforms." + alias + ".";
        expect(problems, c, p + "table.field.event.id", "id", cols.id(), "id");
        expect(problems, c, p + "table.field.event.key", "aggregateid", cols.aggregateId(), "aggregate-id");
        expect(problems, c, p + "table.field.event.payload", "payload", cols.payload(), "payload");
        String route = c.getOrDefault(p + "route.by.field", "aggregatetype");
        if (!route.equals(cols.aggregateType()) && !route.equals("destination")) {
            problems.add(p + "route.by.field is '" + route + "', but the outbox's aggregate-type column is '"
                    + cols.aggregateType() + "' (or route by 'destination'; txoutbox.columns.aggregate-type)");
        }
        List<String> known = new ArrayList<>(
                List.of(cols.id(), cols.aggregateType(), cols.aggregateId(), cols.eventType(), cols.payload()));
        known.addAll(FIXED_COLUMNS);
        boolean typePlaced = false;
        String placement = c.getOrDefault(p + "table.fields.additional.placement", "");
        for (String entry : placement.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            String column = entry.strip().split(":")[0];
            if (!known.contains(column)) {
                problems.add(p + "table.fields.additional.placement places column '" + column
                        + "', which the outbox table does not have (its columns: " + String.join(", ", known) + ")");
            }
            typePlaced |= column.equals(cols.eventType());
        }
        if (!typePlaced) {
            problems.add(p + "table.fields.additional.placement does not place the event-type column '"
                    + cols.eventType() + "' (txoutbox.columns.event-type): consumers would not see the event type");
        }
        String include = c.get("table.include.list");
        String qualifiedName = (table.schema() == null ? "public" : table.schema()) + "." + table.name();
        if (include == null || !matchesAny(include, qualifiedName)) {
            problems.add("table.include.list is " + (include == null ? "missing" : "'" + include + "'")
                    + ": it must match the outbox table '" + qualifiedName + "'");
        }
        String converter = c.get("value.converter");
        if (converter != null && !BINARY_CONVERTERS.contains(converter)) {
            problems.add("value.converter is " + converter + ", but the payload column '" + cols.payload()
                    + "' is bytea: use " + BINARY_CONVERTER + " to publish the payload's bytes as they are");
        }
        return problems;
    }

    /**
     * Like {@link #check}, but throws.
     *
     * @param table the outbox table and its column mapping
     * @param config the connector's configuration
     * @throws OutboxValidationException listing every problem, each naming the setting and the column
     */
    public static void verify(OutboxTable table, Map<String, String> config) {
        List<String> problems = check(table, config);
        if (!problems.isEmpty()) {
            throw new OutboxValidationException(
                    "connector configuration",
                    null,
                    "txoutbox: the connector configuration does not fit the outbox table '" + table.qualifiedName()
                            + "': " + String.join("; ", problems));
        }
    }

    private static void expect(
            List<String> problems, Map<String, String> c, String key, String dflt, String column, String setting) {
        String value = c.getOrDefault(key, dflt);
        if (!value.equals(column)) {
            problems.add(key + " is '" + value + "'" + (c.containsKey(key) ? "" : " (the router's default)")
                    + ", but the outbox's " + setting + " column is '" + column + "' (txoutbox.columns." + setting
                    + ")");
        }
    }

    private static boolean matchesAny(String includeList, String qualifiedName) {
        for (String regex : includeList.split(",")) {
            try {
                if (Pattern.matches(regex.strip(), qualifiedName)) {
                    return true;
                }
            } catch (PatternSyntaxException bad) {
                return false;
            }
        }
        return false;
    }

    private static Map<String, String> normalize(Map<String, String> config) {
        Map<String, String> m = new LinkedHashMap<>();
        config.forEach((k, v) -> {
            String key = k.startsWith("debezium.source.")
                    ? k.substring("debezium.source.".length())
                    : k.startsWith("debezium.") ? k.substring("debezium.".length()) : k;
            m.put(key, v == null ? "" : v.strip());
        });
        return m;
    }

    /** A properties file reads a backslash as an escape. */
    private static String escapeProperty(String value) {
        return value.replace("\\", "\\\\");
    }

    private static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                default -> {
                    if (ch < 0x20) {
                        q.append(String.format("\\u%04x", (int) ch));
                    } else {
                        q.append(ch);
                    }
                }
            }
        }
        return q.append('"').toString();
    }

    @Override
    public String toString() {
        return "DebeziumOutboxConfig[table=" + table.qualifiedName() + ", slot=" + connector.get("slot.name") + "]";
    }

    /** Builds a {@link DebeziumOutboxConfig}; every setting is checked at {@link #build()}. */
    public static final class Builder {
        final OutboxTable table;
        String schema;
        String slotName;
        String publicationName;
        String topicPrefix = "txoutbox";
        String topicReplacement = "${routedByValue}";
        boolean routeByDestination;
        final Map<String, String> database = new LinkedHashMap<>();

        private Builder(OutboxTable table) {
            this.table = table;
            this.schema = table.schema() == null ? "public" : table.schema();
            this.slotName = table.channel();
            this.publicationName = table.channel();
        }

        /**
         * @param hostname the database host
         * @param port its port
         * @param dbname the database
         * @param user a user with the {@code REPLICATION} attribute (or the owner of the slot)
         * @param password the password, or a config-provider reference such as {@code
         *     ${file:/secrets/pg.properties:password}}; it appears in the output as given
         * @return this builder
         */
        public Builder database(String hostname, int port, String dbname, String user, String password) {
            database.put("database.hostname", hostname);
            database.put("database.port", Integer.toString(port));
            database.put("database.dbname", dbname);
            database.put("database.user", user);
            database.put("database.password", password);
            return this;
        }

        /**
         * @param schema the schema of a table configured without one (default {@code public})
         * @return this builder
         */
        public Builder schema(String schema) {
            this.schema = schema;
            return this;
        }

        /**
         * @param slotName the replication slot (default the table's channel name, {@code txoutbox_outbox})
         * @return this builder
         */
        public Builder slotName(String slotName) {
            this.slotName = slotName;
            return this;
        }

        /**
         * @param publicationName the publication (default the same name as the slot)
         * @return this builder
         */
        public Builder publicationName(String publicationName) {
            this.publicationName = publicationName;
            return this;
        }

        /**
         * @param topicPrefix Debezium's {@code topic.prefix}: names the connector's own topics (heartbeats,
         *     offsets in Debezium Server), not the events' (default {@code txoutbox})
         * @return this builder
         */
        public Builder topicPrefix(String topicPrefix) {
            this.topicPrefix = topicPrefix;
            return this;
        }

        /**
         * @param replacement the events' topic, where {@code ${routedByValue}} is the route (default the
         *     route itself, as txoutbox's Kafka transport does; Debezium's default is {@code
         *     outbox.event.${routedByValue}})
         * @return this builder
         */
        public Builder topic(String replacement) {
            this.topicReplacement = replacement;
            return this;
        }

        /**
         * Routes every event by its {@code destination} column instead of its aggregate type. The router
         * reads one column: every producer must then set a destination on every event, because an event
         * without one has no topic and stops the connector.
         *
         * @param routeByDestination true to route by {@code destination} (default false: by aggregate type)
         * @return this builder
         */
        public Builder routeByDestination(boolean routeByDestination) {
            this.routeByDestination = routeByDestination;
            return this;
        }

        /**
         * @return the configuration
         * @throws OutboxValidationException naming a setting that is not a valid name
         */
        public DebeziumOutboxConfig build() {
            Identifiers.check("DebeziumOutboxConfig.schema", schema, Identifiers.MAX_COLUMN);
            Identifiers.check("DebeziumOutboxConfig.slotName", slotName, Identifiers.MAX_COLUMN);
            Identifiers.check("DebeziumOutboxConfig.publicationName", publicationName, Identifiers.MAX_COLUMN);
            if (topicPrefix == null || !topicPrefix.matches("[A-Za-z0-9._-]{1,200}")) {
                throw new OutboxValidationException(
                        "DebeziumOutboxConfig.topicPrefix",
                        "[A-Za-z0-9._-]{1,200}",
                        "DebeziumOutboxConfig.topicPrefix '" + topicPrefix
                                + "' must be 1 to 200 letters, digits, '.', '_' or '-'");
            }
            if (topicReplacement == null || !topicReplacement.contains("${routedByValue}")) {
                throw new OutboxValidationException(
                        "DebeziumOutboxConfig.topic",
                        null,
                        "DebeziumOutboxConfig.topic '" + topicReplacement
                                + "' must contain ${routedByValue}, the event's route");
            }
            return new DebeziumOutboxConfig(this);
        }
    }
}
