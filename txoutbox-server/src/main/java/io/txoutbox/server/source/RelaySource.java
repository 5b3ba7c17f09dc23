package io.txoutbox.server.source;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxAdmin;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.internal.admin.DatabaseFailure;
import io.txoutbox.micrometer.OutboxMetrics;
import io.txoutbox.relay.Relay;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One configured source at run time: its connection pool, its outbox, the publisher of its routes, its
 * relays, its meters and its activity. Closing it stops the relays (each finishes its batch in flight
 * and returns its leases), then closes the publishers and the pool: everything it created, nothing
 * else.
 */
public final class RelaySource implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RelaySource.class);

    private final ServerConfig.Source config;
    private final String key;
    /** What one attempt to connect created (pool, meters); closed again when the attempt fails. */
    private final List<AutoCloseable> created = new ArrayList<>();
    /** The routes' publishers: opened once, closed with the source. */
    private final List<Publisher> publishers = new ArrayList<>();

    private final List<Relay> relays = new ArrayList<>();
    private final Activity activity;
    private final Readiness readiness;
    private final List<String> transports = new ArrayList<>();
    private HikariDataSource pool;
    private Outbox outbox;
    private Dialect dialect;
    private RoutingPublisher routing;
    private volatile boolean closed;
    private final ReentrantLock attempt = new ReentrantLock();
    private MeterRegistry registry;
    private final int maxTypes;
    private volatile String waiting;
    private RuntimeException waitingCause;

    private RelaySource(ServerConfig.Source config, String key, int maxTypes) {
        this.config = config;
        this.key = key;
        this.maxTypes = maxTypes;
        this.activity = new Activity(maxTypes);
        this.readiness = new Readiness(config.name(), System::nanoTime);
    }

    /**
     * Connects, checks (or creates) the table, opens the transports and builds the relays, not started.
     *
     * @param config the source
     * @param key its configuration key, e.g. {@code sources[0]}, for error messages
     * @param registry where its meters go
     * @throws ConfigException naming the key when the database, the table or a transport refuses, or the
     *     database cannot be reached
     */
    static RelaySource open(ServerConfig.Source config, String key, MeterRegistry registry) {
        RelaySource s = prepare(config, key, registry);
        if (!s.tryConnect()) {
            throw s.unreachable();
        }
        return s;
    }

    /**
     * A source that is not connected yet: {@link #tryConnect()} connects it.
     *
     * @param config the source
     * @param key its configuration key, e.g. {@code sources[0]}, for error messages
     * @param registry where its meters go
     * @return the source, waiting for its database
     */
    public static RelaySource prepare(ServerConfig.Source config, String key, MeterRegistry registry) {
        return prepare(config, key, registry, ServerConfig.Limits.DEFAULT.maxEventTypes());
    }

    /**
     * As {@link #prepare(ServerConfig.Source, String, MeterRegistry)}, with a bound on the event types
     * that get meters and activity rows of their own ({@code admin.max-event-types}).
     */
    public static RelaySource prepare(ServerConfig.Source config, String key, MeterRegistry registry, int maxTypes) {
        RelaySource s = new RelaySource(config, key, maxTypes);
        s.registry = registry;
        s.waiting = "not connected yet";
        try {
            s.openRoutes(registry);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /**
     * One attempt to connect: the database, the table, the transports and the relays (not started). On
     * unavailability ({@link DatabaseFailure}) everything this attempt opened is closed again and the
     * reason is kept for {@link #waitingFor()}; any other failure is closed too, and thrown.
     *
     * @return whether the source is connected now
     * @throws ConfigException naming the key when the database or the table refuses the configuration
     */
    public boolean tryConnect() {
        attempt.lock();
        try {
            if (closed || waiting == null) {
                return waiting == null && !closed;
            }
            try {
                build(registry);
                waiting = null;
                waitingCause = null;
                return true;
            } catch (RuntimeException e) {
                closeCreated();
                if (!DatabaseFailure.isUnavailability(e)) {
                    throw e;
                }
                waiting = DatabaseFailure.reason(e);
                waitingCause = e;
                return false;
            }
        } finally {
            attempt.unlock();
        }
    }

    /** @return why the source is not connected yet, or {@code null} when it is */
    public String waitingFor() {
        return waiting;
    }

    /** @return the error of a start that may not wait: the database cannot be reached */
    public ConfigException unreachable() {
        return new ConfigException(
                key + ".jdbc-url",
                "cannot connect (" + Redaction.redact(config.jdbcUrl()) + ", user " + config.user() + "): " + waiting,
                waitingCause);
    }

    private void build(MeterRegistry registry) {
        probe();
        RoutingPublisher publisher = routing;
        HikariConfig h = config.poolConfig();
        h.setPoolName("txoutbox-" + config.name());
        h.setMaximumPoolSize(config.poolSize());
        h.setMinimumIdle(1);
        pool = new HikariDataSource(h);
        created.add(pool);
        try {
            dialect = config.resolveDialect(pool);
        } catch (OutboxException e) {
            throw new ConfigException(key + ".dialect", e.getMessage(), e);
        }
        Outbox.Builder b = config.outboxBuilder(pool, dialect);
        try {
            outbox = b.build();
            created.add(outbox);
        } catch (OutboxSchemaException e) {
            throw new ConfigException(
                    key + ".table",
                    e.getMessage()
                            + (config.createSchema() ? "" : " (or set create-schema: true, or run: txoutbox schema)"),
                    e);
        } catch (OutboxValidationException e) {
            throw ConfigException.refused(e);
        } catch (OutboxException e) {
            throw new ConfigException(key + ".table", e.getMessage(), e);
        }
        OutboxMetrics metrics = OutboxMetrics.builder(outbox, registry)
                .tags(Tags.of("source", config.name()))
                .statsRefresh(Duration.ofSeconds(5))
                .maxTypes(maxTypes)
                .build();
        created.add(metrics);
        ServerConfig.Relay r = config.relay();
        for (int i = 1; i <= r.instances(); i++) {
            Relay.Builder rb = r.configure(outbox.relay(publisher))
                    .name(r.instances() == 1 ? config.name() : config.name() + "-" + i)
                    .listener(Activity.both(metrics.relayListener(), Activity.both(activity, readiness)));
            relays.add(rb.build());
        }
    }

    /**
     * One connection straight from the driver, before the pool: a pool retries in the background and
     * answers with a generic timeout after the whole connect timeout, while the driver says at once what
     * the database said (a missing database, a wrong password, a refused connection).
     *
     * @throws ConfigException naming {@code jdbc-url} with the database's reason; its cause is the
     *     driver's exception, so that {@link DatabaseFailure} can tell unavailability by SQLState
     */
    private void probe() {
        Properties p = new Properties();
        if (config.user() != null) {
            p.setProperty("user", config.user());
        }
        if (config.password() != null) {
            p.setProperty("password", config.password().value());
        }
        try (Connection c = DriverManager.getDriver(config.jdbcUrl()).connect(config.jdbcUrl(), p)) {
            if (c == null) {
                throw new ConfigException(key + ".jdbc-url", "no bundled JDBC driver accepts this URL");
            }
        } catch (SQLException e) {
            String state = e.getSQLState();
            String what = state != null && state.startsWith("28")
                    ? "the database refused the user or password"
                    : DatabaseFailure.isUnavailability(e) ? "cannot connect" : "the database refused the connection";
            throw new ConfigException(
                    key + ".jdbc-url",
                    what + " (" + Redaction.redact(config.jdbcUrl()) + ", user " + config.user() + "): "
                            + DatabaseFailure.reason(e),
                    e);
        }
    }

    /**
     * Opens the transports of every route, once for the source's life: a setting their library refuses
     * is reported at once, database up or not, and attempts to reach a late database do not reconnect
     * the brokers or register the route meters again.
     */
    private void openRoutes(MeterRegistry registry) {
        List<RoutingPublisher.Target> targets = new ArrayList<>();
        for (ServerConfig.Route route : config.routes()) {
            Publisher p = route.transport().open();
            publishers.add(p);
            targets.add(new RoutingPublisher.Target(
                    route.name(),
                    route.types(),
                    route.transport().name(),
                    p,
                    route.transport().describe()));
            transports.add(route.name() + ": " + route.types() + " -> "
                    + route.transport().describe());
        }
        routing = new RoutingPublisher(
                targets,
                config.relay().settings().publishTimeout(),
                registry,
                Tags.of("source", config.name()),
                java.time.InstantSource.system());
        activity.track(routing.routes());
    }

    /** @return each route's figures, in configuration order */
    public List<RouteStats> routes() {
        return routing == null ? List.of() : routing.routes();
    }

    public void start() {
        relays.forEach(Relay::start);
        readiness.start(pool);
        log.info(
                "txoutbox-server: source '{}' relays table {} ({}, {}{}) with {} relay(s): {}",
                config.name(),
                outbox.table(),
                Redaction.redact(config.jdbcUrl()),
                dialect.name(),
                config.ordered() == null
                        ? ""
                        : ", ordered, dead-head " + config.ordered().name().toLowerCase(),
                relays.size(),
                transports);
    }

    public String name() {
        return config.name();
    }

    public ServerConfig.Source config() {
        return config;
    }

    public Dialect dialect() {
        return dialect;
    }

    public Outbox outbox() {
        return outbox;
    }

    public OutboxAdmin admin() {
        return outbox.admin();
    }

    public Activity activity() {
        return activity;
    }

    public List<String> transports() {
        return List.copyOf(transports);
    }

    public List<Relay> relays() {
        return List.copyOf(relays);
    }

    public void pause() {
        relays.forEach(Relay::pause);
    }

    public void resume() {
        relays.forEach(Relay::resume);
    }

    /** @return {@code running}, {@code paused}, {@code waiting} (for its database) or {@code stopped} */
    public String status() {
        if (!closed && waiting != null) {
            return "waiting";
        }
        if (closed || relays.stream().noneMatch(Relay::isRunning)) {
            return "stopped";
        }
        return relays.stream().allMatch(Relay::isPaused) ? "paused" : "running";
    }

    /**
     * @return whether every relay runs and the database answers, as the relays (or, while they are idle,
     *     a background check at most every few seconds) last saw it: never a database round trip of its own
     */
    public boolean ready() {
        if (closed || waiting != null || pool == null || !relays.stream().allMatch(Relay::isRunning)) {
            return false;
        }
        return readiness.databaseAnswers();
    }

    /**
     * @return why a connected source is not ready, in words without database text ({@code /ready} has no
     *     token), or {@code null} when it is ready or still waits for its database ({@link #waitingFor()})
     */
    public String notReadyBecause() {
        if (closed || waiting != null || ready()) {
            return null;
        }
        if (!relays.stream().allMatch(Relay::isRunning)) {
            return "a relay is not running";
        }
        return "the database does not answer: " + readiness.problem();
    }

    /** @return the readiness the relays report to */
    Readiness readiness() {
        return readiness;
    }

    /** @return the pool's figures (active, idle, waiting threads), or {@code null} before it is connected */
    HikariPoolMXBean poolStats() {
        HikariDataSource p = pool;
        return p == null ? null : p.getHikariPoolMXBean();
    }

    /** Stops the relays first (batch in flight finished, leases returned), then what it created. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        readiness.stop();
        attempt.lock();
        try {
            closeCreated();
            closeLastFirst(publishers, p -> "a publisher");
            publishers.clear();
            transports.clear();
        } finally {
            attempt.unlock();
        }
    }

    /** Closes each of the resources, last first; a failure is logged, naming the resource by {@code what}. */
    private void closeLastFirst(List<? extends AutoCloseable> resources, Function<AutoCloseable, String> what) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            AutoCloseable r = resources.get(i);
            try {
                r.close();
            } catch (Exception e) {
                log.warn(
                        "txoutbox-server: closing {} of source '{}' failed: {}",
                        what.apply(r),
                        config.name(),
                        e.toString());
            }
        }
    }

    /** Closes what the last attempt created, relays first, so that a later attempt starts clean. */
    private void closeCreated() {
        for (Relay r : relays) {
            try {
                r.stop();
            } catch (RuntimeException e) {
                log.warn("txoutbox-server: relay '{}' did not stop cleanly: {}", r.name(), e.toString());
            }
        }
        closeLastFirst(created, c -> c.getClass().getSimpleName());
        relays.clear();
        created.clear();
        pool = null;
        outbox = null;
        dialect = null;
    }
}
