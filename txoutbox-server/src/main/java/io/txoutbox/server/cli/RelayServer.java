package io.txoutbox.server.cli;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.http.AdminServer;
import io.txoutbox.server.source.RelaySource;
import io.txoutbox.server.yaml.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running relay server: one {@link RelaySource} per configured source, the admin HTTP server, the
 * Prometheus registry, and a sampler that records each source's throughput every second.
 *
 * <p>{@link #close()} stops it in order: the HTTP server, then every source (relays finish their batch
 * in flight and return their leases; then transports and pools close). Idempotent.
 */
public final class RelayServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

    private final Map<String, RelaySource> sources = new LinkedHashMap<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "txoutbox-sampler");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService starter = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "txoutbox-startup");
        t.setDaemon(true);
        return t;
    });
    private final CompletableFuture<RuntimeException> failure = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private AdminServer admin;

    private RelayServer() {}

    /**
     * Opens every source (database, table, transports), starts the relays and the HTTP server. A source
     * whose database cannot be reached yet (by SQLState: see {@link io.txoutbox.internal.admin.DatabaseFailure}) is retried in the
     * background with backoff while the others relay, unless {@code startup.retry} is false.
     *
     * @param config the validated configuration
     * @return the running server
     * @throws ConfigException naming the key when a source or the admin port cannot be opened, or a
     *     database cannot be reached and start-up retries are off; whatever was opened is closed again
     */
    public static RelayServer start(ServerConfig config) {
        RelayServer s = new RelayServer();
        try {
            s.open(config);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void open(ServerConfig config) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        List<ServerConfig.Source> list = config.sources();
        for (int i = 0; i < list.size(); i++) {
            RelaySource source = RelaySource.prepare(
                    list.get(i),
                    "sources[" + i + "]",
                    registry,
                    config.admin().limits().maxEventTypes());
            sources.put(source.name(), source);
            if (!source.tryConnect() && !config.startup().retry()) {
                throw source.unreachable();
            }
        }
        admin = AdminServer.start(config.admin(), this::sources, registry);
        for (RelaySource source : sources.values()) {
            if (source.waitingFor() == null) {
                source.start();
            } else {
                log.warn(
                        "txoutbox-server: source '{}' waits for its database (the other sources relay meanwhile;"
                                + " /ready says not ready): {}",
                        source.name(),
                        source.waitingFor());
                retry(source, config.startup(), 1);
            }
        }
        sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
        log.info(
                "txoutbox-server: admin API{} on http://{}:{}/ ({} source(s))",
                config.admin().dashboard() ? " and dashboard" : "",
                config.admin().host(),
                admin.port(),
                sources.size());
    }

    /**
     * Tries a waiting source again after a backoff (1 s, doubling, up to {@code startup.max-backoff}, with
     * jitter), until it connects, the server stops, or the database refuses the configuration: that
     * completes {@link #failure()}, and the process stops with exit 2 as it would have at start-up.
     */
    private void retry(RelaySource source, ServerConfig.Startup startup, int attempt) {
        long max = startup.maxBackoff().toMillis();
        long base = Math.min(max, 1000L << Math.min(attempt - 1, 20));
        long delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
        try {
            starter.schedule(
                    () -> {
                        if (closed.get()) {
                            return;
                        }
                        try {
                            if (source.tryConnect()) {
                                source.start();
                                log.info(
                                        "txoutbox-server: source '{}' reached its database after {} attempt(s)",
                                        source.name(),
                                        attempt + 1);
                                return;
                            }
                        } catch (ConfigException e) {
                            log.error("txoutbox-server: source '{}' cannot start: {}", source.name(), e.getMessage());
                            failure.complete(e);
                            return;
                        } catch (RuntimeException e) {
                            log.error("txoutbox-server: source '{}' cannot start", source.name(), e);
                            failure.complete(e);
                            return;
                        }
                        log.warn(
                                "txoutbox-server: source '{}' still waits for its database (attempt {}): {}",
                                source.name(),
                                attempt + 1,
                                source.waitingFor());
                        retry(source, startup, attempt + 1);
                    },
                    delay,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The server is stopping.
        }
    }

    /**
     * @return completes when a source that waited for its database found the configuration wrong once it
     *     came (a missing table, say): the server cannot do what it was asked, so {@code run} stops
     */
    public CompletableFuture<RuntimeException> failure() {
        return failure;
    }

    private void sample() {
        long now = System.currentTimeMillis();
        for (RelaySource s : sources.values()) {
            s.activity().sample(now);
        }
    }

    /** @return the port the HTTP server listens on */
    public int port() {
        return admin.port();
    }

    /** @return the admin server's open connections */
    public int connections() {
        return admin.connections();
    }

    public List<RelaySource> sources() {
        return new ArrayList<>(sources.values());
    }

    public RelaySource source(String name) {
        return sources.get(name);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        sampler.shutdownNow();
        starter.shutdownNow();
        if (admin != null) {
            admin.close();
        }
        List<RelaySource> list = new ArrayList<>(sources.values());
        for (int i = list.size() - 1; i >= 0; i--) {
            list.get(i).close();
        }
        registry.close();
        log.info("txoutbox-server: stopped");
    }
}
