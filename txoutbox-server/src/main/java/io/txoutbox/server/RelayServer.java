package io.txoutbox.server;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
final class RelayServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RelayServer.class);

    private final Map<String, RelaySource> sources = new LinkedHashMap<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "txoutbox-sampler");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean closed = new AtomicBoolean();
    private AdminServer admin;

    private RelayServer() {}

    /**
     * Opens every source (database, table, transports), starts the relays and the HTTP server.
     *
     * @param config the validated configuration
     * @return the running server
     * @throws ConfigException naming the key when a source or the admin port cannot be opened; whatever
     *     was opened is closed again
     */
    static RelayServer start(ServerConfig config) {
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
            RelaySource source = RelaySource.open(list.get(i), "sources[" + i + "]", registry);
            sources.put(source.name(), source);
        }
        admin = AdminServer.start(config.admin(), this, registry);
        sources.values().forEach(RelaySource::start);
        sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
        log.info(
                "txoutbox-server: admin API{} on http://{}:{}/ ({} source(s))",
                config.admin().dashboard() ? " and dashboard" : "",
                config.admin().host(),
                admin.port(),
                sources.size());
    }

    private void sample() {
        long now = System.currentTimeMillis();
        for (RelaySource s : sources.values()) {
            s.activity().sample(now);
        }
    }

    /** @return the port the HTTP server listens on */
    int port() {
        return admin.port();
    }

    List<RelaySource> sources() {
        return new ArrayList<>(sources.values());
    }

    RelaySource source(String name) {
        return sources.get(name);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        sampler.shutdownNow();
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
