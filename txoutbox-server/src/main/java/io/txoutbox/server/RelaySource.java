package io.txoutbox.server;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxAdmin;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.jdbc.Dialect;
import io.txoutbox.micrometer.OutboxMetrics;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One configured source at run time: its connection pool, its outbox, the publisher of its routes, its
 * relays, its meters and its activity. Closing it stops the relays (each finishes its batch in flight
 * and returns its leases), then closes the publishers and the pool: everything it created, nothing
 * else.
 */
final class RelaySource implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RelaySource.class);

    private final ServerConfig.Source config;
    private final String key;
    private final List<AutoCloseable> created = new ArrayList<>();
    private final List<Relay> relays = new ArrayList<>();
    private final Activity activity = new Activity();
    private final List<String> transports = new ArrayList<>();
    private HikariDataSource pool;
    private Outbox outbox;
    private Dialect dialect;
    private RoutingPublisher routing;
    private volatile boolean closed;

    private RelaySource(ServerConfig.Source config, String key) {
        this.config = config;
        this.key = key;
    }

    /**
     * Connects, checks (or creates) the table, opens the transports and builds the relays, not started.
     *
     * @param config the source
     * @param key its configuration key, e.g. {@code sources[0]}, for error messages
     * @param registry where its meters go
     * @throws ConfigException naming the key when the database, the table or a transport refuses
     */
    static RelaySource open(ServerConfig.Source config, String key, MeterRegistry registry) {
        RelaySource s = new RelaySource(config, key);
        try {
            s.build(registry);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void build(MeterRegistry registry) {
        // The transports first: a setting their library refuses is reported at once, database up or not.
        RoutingPublisher publisher = openRoutes(registry);
        HikariConfig h = new HikariConfig();
        h.setPoolName("txoutbox-" + config.name());
        h.setJdbcUrl(config.jdbcUrl());
        if (config.user() != null) {
            h.setUsername(config.user());
        }
        if (config.password() != null) {
            h.setPassword(config.password().value());
        }
        h.setMaximumPoolSize(config.poolSize());
        h.setMinimumIdle(1);
        h.setConnectionTimeout(config.connectTimeout().toMillis());
        h.setInitializationFailTimeout(-1);
        pool = new HikariDataSource(h);
        created.add(pool);
        try (Connection c = pool.getConnection()) {
            c.isValid(5);
        } catch (SQLException e) {
            String what = e.getSQLState() != null && e.getSQLState().startsWith("28")
                    ? "the database refused the user or password"
                    : "cannot connect";
            throw new ConfigException(
                    key + ".jdbc-url",
                    what + " (" + Masking.jdbcUrl(config.jdbcUrl()) + ", user " + config.user() + "): "
                            + e.getMessage());
        }
        try {
            dialect = config.dialect().equals("auto") ? Dialect.detect(pool) : Dialect.named(config.dialect());
        } catch (OutboxException e) {
            throw new ConfigException(key + ".dialect", e.getMessage(), e);
        }
        Outbox.Builder b = Outbox.builder(pool)
                .table(config.table())
                .dialect(dialect)
                .createSchemaIfMissing(config.createSchema());
        if (config.ordered() != null) {
            b.ordered(config.ordered());
        }
        try {
            outbox = b.build();
        } catch (OutboxSchemaException e) {
            throw new ConfigException(
                    key + ".table",
                    e.getMessage()
                            + (config.createSchema() ? "" : " (or set create-schema: true, or run: txoutbox schema)"),
                    e);
        } catch (OutboxException e) {
            throw new ConfigException(key + ".table", e.getMessage(), e);
        }
        OutboxMetrics metrics = OutboxMetrics.builder(outbox, registry)
                .tags(Tags.of("source", config.name()))
                .statsRefresh(Duration.ofSeconds(5))
                .build();
        created.add(metrics);
        ServerConfig.Relay r = config.relay();
        for (int i = 1; i <= r.instances(); i++) {
            Relay.Builder rb = outbox.relay(publisher)
                    .name(r.instances() == 1 ? config.name() : config.name() + "-" + i)
                    .batchSize(r.batchSize())
                    .pollInterval(r.pollInterval())
                    .leaseDuration(r.leaseDuration())
                    .publishTimeout(r.publishTimeout())
                    .maxAttempts(r.maxAttempts())
                    .backoff(r.backoff())
                    .listen(r.listen())
                    .listener(Activity.both(metrics.relayListener(), activity));
            if (r.retainPublished() != null) {
                rb.retainPublished(r.retainPublished());
            }
            relays.add(rb.build());
        }
    }

    private RoutingPublisher openRoutes(MeterRegistry registry) {
        List<RoutingPublisher.Target> targets = new ArrayList<>();
        for (ServerConfig.Route route : config.routes()) {
            Publisher p = route.transport().open();
            created.add(p);
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
                config.relay().publishTimeout(),
                registry,
                Tags.of("source", config.name()),
                java.time.InstantSource.system());
        activity.track(routing.routes());
        return routing;
    }

    /** @return each route's figures, in configuration order */
    List<RouteStats> routes() {
        return routing == null ? List.of() : routing.routes();
    }

    void start() {
        relays.forEach(Relay::start);
        log.info(
                "txoutbox-server: source '{}' relays table {} ({}, {}{}) with {} relay(s): {}",
                config.name(),
                outbox.table(),
                Masking.jdbcUrl(config.jdbcUrl()),
                dialect.name(),
                config.ordered() == null
                        ? ""
                        : ", ordered, dead-head " + config.ordered().name().toLowerCase(),
                relays.size(),
                transports);
    }

    String name() {
        return config.name();
    }

    ServerConfig.Source config() {
        return config;
    }

    Dialect dialect() {
        return dialect;
    }

    Outbox outbox() {
        return outbox;
    }

    OutboxAdmin admin() {
        return outbox.admin();
    }

    Activity activity() {
        return activity;
    }

    List<String> transports() {
        return List.copyOf(transports);
    }

    List<Relay> relays() {
        return List.copyOf(relays);
    }

    void pause() {
        relays.forEach(Relay::pause);
    }

    void resume() {
        relays.forEach(Relay::resume);
    }

    /** @return {@code running}, {@code paused} or {@code stopped} */
    String status() {
        if (closed || relays.stream().noneMatch(Relay::isRunning)) {
            return "stopped";
        }
        return relays.stream().allMatch(Relay::isPaused) ? "paused" : "running";
    }

    /** @return whether every relay runs and the database answers */
    boolean ready() {
        if (closed || !relays.stream().allMatch(Relay::isRunning)) {
            return false;
        }
        try (Connection c = pool.getConnection()) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    /** Stops the relays first (batch in flight finished, leases returned), then what it created. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Relay r : relays) {
            try {
                r.stop();
            } catch (RuntimeException e) {
                log.warn("txoutbox-server: relay '{}' did not stop cleanly: {}", r.name(), e.toString());
            }
        }
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                created.get(i).close();
            } catch (Exception e) {
                log.warn(
                        "txoutbox-server: closing {} of source '{}' failed: {}",
                        created.get(i).getClass().getSimpleName(),
                        config.name(),
                        e.toString());
            }
        }
    }
}
