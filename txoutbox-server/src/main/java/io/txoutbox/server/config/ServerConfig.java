package io.txoutbox.server.config;

import com.zaxxer.hikari.HikariConfig;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxSettings;
import io.txoutbox.Redaction;
import io.txoutbox.internal.admin.AdminJson;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.server.transport.Transports;
import io.txoutbox.server.yaml.Secret;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The whole configuration of a relay server, validated: what {@link ConfigLoader} reads from YAML and
 * what the demo builds in code. Records print secrets as {@code ****}, and a source its URL redacted.
 *
 * @param admin the admin API and dashboard
 * @param sources the outbox tables to relay, at least one, names unique
 * @param startup what a source does when its database is not reachable at start-up
 */
public record ServerConfig(Admin admin, List<Source> sources, Startup startup) {
    public ServerConfig {
        sources = List.copyOf(sources);
    }

    /** With the default start-up behaviour: retry unreachable databases. */
    ServerConfig(Admin admin, List<Source> sources) {
        this(admin, sources, Startup.DEFAULT);
    }

    /** @return this configuration, with start-up retries off: an unreachable database fails at once */
    ServerConfig failFast() {
        return new ServerConfig(admin, sources, new Startup(false, startup.maxBackoff()));
    }

    /**
     * @param retry keep retrying a source whose database is unreachable at start-up (with backoff, not ready
     *     meanwhile), instead of failing the start
     * @param maxBackoff the longest wait between two attempts
     */
    public record Startup(boolean retry, Duration maxBackoff) {
        static final Startup DEFAULT = new Startup(true, Duration.ofSeconds(30));
    }

    /**
     * The bounds that keep the HTTP side and its outputs small whatever clients and tables do.
     *
     * @param requestTimeout the longest a client may take to send one request (headers and body)
     * @param idleTimeout how long an idle keep-alive connection stays open
     * @param maxConnections connections open at once; beyond it new ones wait in the accept queue
     * @param maxIncompleteRequests requests arriving at once (their connection open, the request not whole
     *     yet), fewer than {@code maxConnections}; one more closes the longest-waiting one
     * @param maxIncompleteRequestsPerClient the same for one remote address, at most {@code
     *     maxIncompleteRequests}
     * @param maxEventTypes event types shown one by one in {@code /metrics} and the stats; the rest are
     *     summed under {@code <other>}
     */
    public record Limits(
            Duration requestTimeout,
            Duration idleTimeout,
            int maxConnections,
            int maxIncompleteRequests,
            int maxIncompleteRequestsPerClient,
            int maxEventTypes) {
        public static final Limits DEFAULT = new Limits(
                Duration.ofSeconds(10),
                Duration.ofSeconds(30),
                256,
                defaultMaxIncomplete(256),
                defaultMaxIncompletePerClient(defaultMaxIncomplete(256)),
                AdminJson.DEFAULT_MAX_TYPES);

        /**
         * @return the bound on incomplete requests when the file gives none: 64, and at most half of the
         *     connection cap, so that slow clients can never fill it
         */
        static int defaultMaxIncomplete(int maxConnections) {
            return Math.min(64, maxConnections / 2);
        }

        /** @return the bound per client when the file gives none: 8, and at most the total bound */
        static int defaultMaxIncompletePerClient(int maxIncomplete) {
            return Math.min(8, maxIncomplete);
        }
    }

    /**
     * @param host the address the HTTP server binds (default 127.0.0.1: reachable from this machine only)
     * @param port the port (default 8080; 0 picks a free one)
     * @param token the bearer token every admin route requires
     * @param dashboard serve the web dashboard at {@code /}
     * @param limits request timeouts, the connection cap and the per-type bound of the outputs
     */
    public record Admin(String host, int port, Secret token, boolean dashboard, Limits limits) {
        /** With the default limits. */
        public Admin(String host, int port, Secret token, boolean dashboard) {
            this(host, port, token, dashboard, Limits.DEFAULT);
        }

        /** @return these settings on another port */
        public Admin withPort(int port) {
            return new Admin(host, port, token, dashboard, limits);
        }
    }

    /**
     * @param name the source's name in the API, the metrics and the relays' names
     * @param jdbcUrl the database
     * @param user the database user, or {@code null}
     * @param password the database password, or {@code null}
     * @param dialect {@code auto}, {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}
     * @param outbox the outbox's settings the YAML gives (table, ordered mode, schema creation, wake-ups,
     *     published partitions, fair claims), checked by the library's rules when the YAML was read
     * @param poolSize the connection pool's maximum size
     * @param connectTimeout how long to wait for a database connection
     * @param relay the relay settings
     * @param routes which transport each event type goes to, at least one
     */
    public record Source(
            String name,
            String jdbcUrl,
            String user,
            Secret password,
            String dialect,
            OutboxSettings outbox,
            int poolSize,
            Duration connectTimeout,
            Relay relay,
            List<Route> routes) {
        public Source {
            routes = List.copyOf(routes);
            Redaction.registerUrl(jdbcUrl);
        }

        /** @return the outbox table, {@code name} or {@code schema.name} */
        public String table() {
            return outbox.table().qualifiedName();
        }

        /** @return the dead-head policy of ordered mode, or {@code null} when unordered */
        public DeadHeadPolicy ordered() {
            return outbox.ordered();
        }

        /** @return whether the table is created at start-up when missing */
        public boolean createSchema() {
            return outbox.createSchema();
        }

        /** @return whether the table has the trigger that wakes idle relays on rows of other programs */
        boolean foreignWriterWakeups() {
            return outbox.foreignWriterWakeups();
        }

        /** @return the width of the partitions of published rows, or {@code null} */
        Duration publishedPartitions() {
            return outbox.publishedPartitions();
        }

        /** @return the record's fields, the URL through {@link Redaction} and the password as {@code ****} */
        @Override
        public String toString() {
            return "Source[name=" + name + ", jdbcUrl=" + Redaction.redact(jdbcUrl) + ", user=" + user
                    + ", password=" + password + ", dialect=" + dialect + ", outbox=" + outbox + ", poolSize="
                    + poolSize + ", connectTimeout=" + connectTimeout + ", relay=" + relay + ", routes=" + routes
                    + "]";
        }

        /**
         * @return a connection pool configuration on this source's database, as its user, with its connect
         *     timeout, that starts without waiting for the database; the caller names and sizes the pool
         */
        public HikariConfig poolConfig() {
            HikariConfig h = new HikariConfig();
            h.setJdbcUrl(jdbcUrl);
            if (user != null) {
                h.setUsername(user);
            }
            if (password != null) {
                h.setPassword(password.value());
            }
            h.setConnectionTimeout(connectTimeout.toMillis());
            h.setInitializationFailTimeout(-1);
            return h;
        }

        /**
         * @param pool a pool on this source's database
         * @return the dialect this source names, or for {@code auto} the one the database reports
         * @throws io.txoutbox.OutboxException when the dialect is unknown or the database's cannot be detected
         */
        public Dialect resolveDialect(DataSource pool) {
            return dialect.equals("auto") ? Dialect.detect(pool) : Dialect.named(dialect);
        }

        /**
         * @param pool a pool on this source's database
         * @param dialect its dialect ({@link #resolveDialect})
         * @return a builder of this source's outbox: its settings as the YAML gave them (a refusal once the
         *     dialect is known still names their keys), in that dialect
         */
        public Outbox.Builder outboxBuilder(DataSource pool, Dialect dialect) {
            return Outbox.builder(pool).settings(outbox).dialect(dialect);
        }
    }

    /**
     * @param instances how many relays of these settings run on the source's table
     * @param settings their settings, checked by the library's rules when the YAML was read (each relay is
     *     named after the source, and numbered when there are several)
     */
    public record Relay(int instances, RelaySettings settings) {
        /**
         * @param b a relay builder
         * @return {@code b} with these settings
         */
        public io.txoutbox.relay.Relay.Builder configure(io.txoutbox.relay.Relay.Builder b) {
            return b.settings(settings);
        }
    }

    /**
     * @param key the configuration key of this route, for error messages
     * @param name the route's name in metrics and the API ({@code route} tag), unique in its source
     * @param types exact event types, prefixes ending in {@code *}, or {@code *} for every type
     * @param transport the transport these events go to
     */
    public record Route(String key, String name, List<String> types, Transports.Spec transport) {
        public Route {
            types = List.copyOf(types);
        }
    }
}
