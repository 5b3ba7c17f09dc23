package io.txoutbox.bench;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.Publishers;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.webhook.WebhookEndpoint;
import io.txoutbox.webhook.WebhookPublisher;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * ROUTE, a slow route: one relay whose publisher is {@link Publishers#byEventType} with a fast route (a
 * no-op publisher) and a webhook route whose receiver answers after 3 s. Open-loop producers append
 * fast events at {@link #FAST_RATE}/s and, beside them, slow events at {@link #SLOW_RATE}/s. The fast
 * route's commit-to-confirmation latency is measured: alone (no slow events), beside the slow route, and
 * beside it with the batch marked as a whole (the same routes behind a publisher of one part, which is
 * what every multi-route publisher did before parts). Variants alternate, round by round, in one run;
 * the ratio is the median of the rounds' paired p99 ratios.
 */
final class RouteIsolation {
    static final String WORKLOAD = "ROUTE";
    static final int FAST_RATE = 500;
    static final int SLOW_RATE = 5;
    static final Duration SLOW_ANSWER = Duration.ofSeconds(3);
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    enum Variant {
        ALONE("fast route alone"),
        BESIDE("fast route beside a 3 s webhook route"),
        WHOLE("beside it, batch marked as a whole (before)");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    private final Pg pg;
    private final Sizes sizes;
    private final Results results;
    private final AtomicLong seq = new AtomicLong();

    RouteIsolation(Pg pg, Sizes sizes, Results results) {
        this.pg = pg;
        this.sizes = sizes;
        this.results = results;
    }

    void run() throws Exception {
        String table = pg.table("route_outbox");
        pg.exec("DROP TABLE IF EXISTS " + table);
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        ExecutorService receiverThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "route-receiver");
            t.setDaemon(true);
            return t;
        });
        receiver.setExecutor(receiverThreads);
        receiver.createContext("/hook", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                Workloads.parkUntil(System.nanoTime() + SLOW_ANSWER.toNanos());
                ex.sendResponseHeaders(204, -1);
            }
        });
        receiver.start();
        AtomicReference<Recorder> current = new AtomicReference<>(new Recorder(true));
        AtomicLong slowConfirmed = new AtomicLong();
        Publisher fast = batch -> {
            Recorder r = current.get();
            for (ClaimedEvent e : batch) {
                r.confirm(e.id());
            }
            return CompletableFuture.completedFuture(Collections.nCopies(batch.size(), PublishOutcome.PUBLISHED));
        };
        int rounds = Math.max(1, sizes.w1Rounds() + 1);
        Map<Variant, List<Histogram>> byVariant = new EnumMap<>(Variant.class);
        ExecutorService producers = Executors.newFixedThreadPool(8);
        try (WebhookPublisher webhook = WebhookPublisher.builder()
                        .endpoint(WebhookEndpoint.of(
                                "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook", SECRET))
                        .allowPrivateNetworks(true)
                        .maxConcurrentRequests(256)
                        .requestTimeout(Duration.ofSeconds(8))
                        .build();
                HikariDataSource producerPool = pg.pool("route-producers", 9);
                HikariDataSource relayPool = pg.pool("route-relay", 8);
                Outbox outbox = Outbox.builder(producerPool)
                        .table(table)
                        .dialect(Dialect.POSTGRESQL)
                        .createSchemaIfMissing(true)
                        .build();
                Outbox relaySide = Outbox.builder(relayPool)
                        .table(table)
                        .dialect(Dialect.POSTGRESQL)
                        .build()) {
            Publisher slow = batch -> webhook.publish(batch).thenApply(list -> {
                slowConfirmed.addAndGet(
                        list.stream().filter(o -> o == PublishOutcome.PUBLISHED).count());
                return list;
            });
            Publisher routed = Publishers.byEventType(Map.of("fast.*", fast, "slow.*", slow));
            // The same routes as one part: the batch is marked when every route has answered.
            Publisher whole = routed::publish;
            for (int round = 0; round < rounds; round++) {
                for (Variant v : Variant.values()) {
                    Recorder rec = new Recorder(true);
                    current.set(rec);
                    Relay relay = relaySide
                            .relay(v == Variant.WHOLE ? whole : routed)
                            .name("route")
                            .batchSize(Workloads.RELAY_BATCH)
                            .build();
                    relay.start();
                    try {
                        byVariant
                                .computeIfAbsent(v, k -> new ArrayList<>())
                                .add(round(outbox, producerPool, producers, rec, v != Variant.ALONE, table));
                    } finally {
                        relay.stop();
                    }
                }
            }
        } finally {
            producers.shutdownNow();
            receiver.stop(0);
            receiverThreads.shutdownNow();
            pg.exec("DROP TABLE IF EXISTS " + table);
        }
        report(byVariant, rounds, slowConfirmed.get());
    }

    /** One round: open-loop appends for W2's seconds, then waits for every event (slow ones too). */
    private Histogram round(
            Outbox outbox,
            HikariDataSource pool,
            ExecutorService producers,
            Recorder rec,
            boolean withSlow,
            String table)
            throws Exception {
        long n = (long) FAST_RATE * sizes.w2Seconds();
        long period = TimeUnit.SECONDS.toNanos(1) / FAST_RATE;
        int slowEvery = FAST_RATE / SLOW_RATE;
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong done = new AtomicLong();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (long i = 0; i < n; i++) {
            boolean slowToo = withSlow && i % slowEvery == slowEvery / 2;
            Workloads.parkUntil(start + i * period);
            producers.execute(() -> {
                try {
                    long k = seq.incrementAndGet();
                    OutboxEvent e = event("fast.placed", k);
                    try (Connection c = pool.getConnection()) {
                        c.setAutoCommit(false);
                        outbox.append(c, e);
                        if (slowToo) {
                            outbox.append(c, event("slow.placed", k));
                        }
                        c.commit();
                    }
                    // Only the fast event is timed; the slow one rides in the same transaction.
                    rec.committed(e.id());
                    outbox.committed();
                } catch (Exception ex) {
                    failure.compareAndSet(null, ex);
                } finally {
                    done.incrementAndGet();
                }
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (done.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        // Every fast event confirmed, then every slow one (the table empty), before the next round.
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (rec.confirmedOfCommitted() < rec.commits() && System.nanoTime() < settle) {
            Thread.sleep(20);
        }
        while (pg.count(table) > 0 && System.nanoTime() < settle) {
            Thread.sleep(50);
        }
        return rec.latencies();
    }

    private static OutboxEvent event(String type, long n) {
        return OutboxEvent.builder(type)
                .aggregate("order", "order-" + n)
                .jsonPayload(Workloads.payload(n))
                .build();
    }

    private void report(Map<Variant, List<Histogram>> byVariant, int rounds, long slowConfirmed) {
        String load = FAST_RATE + "/s fast + " + SLOW_RATE + "/s slow";
        for (Variant v : Variant.values()) {
            Histogram all = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
            byVariant.get(v).forEach(all::add);
            String note = rounds + " rounds of " + sizes.w2Seconds() + " s, alternating; "
                    + (v == Variant.ALONE ? FAST_RATE + "/s fast events only" : load);
            results.add(WORKLOAD, "slow route", v.label, "p50", all.getValueAtPercentile(50) / 1000.0, "ms", note);
            results.add(WORKLOAD, "slow route", v.label, "p99", all.getValueAtPercentile(99) / 1000.0, "ms", note);
            results.add(WORKLOAD, "slow route", v.label, "max", all.getMaxValue() / 1000.0, "ms", note);
        }
        for (Variant v : List.of(Variant.BESIDE, Variant.WHOLE)) {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                double alone = byVariant.get(Variant.ALONE).get(i).getValueAtPercentile(99);
                ratios.add(byVariant.get(v).get(i).getValueAtPercentile(99) / Math.max(1.0, alone));
            }
            Collections.sort(ratios);
            double median = ratios.size() % 2 == 1
                    ? ratios.get(ratios.size() / 2)
                    : (ratios.get(ratios.size() / 2 - 1) + ratios.get(ratios.size() / 2)) / 2;
            results.add(
                    WORKLOAD,
                    "slow route",
                    v.label,
                    "p99 vs alone",
                    median,
                    "x",
                    "median of " + rounds + " paired rounds "
                            + ratios.stream()
                                    .map(x -> String.format(java.util.Locale.ROOT, "%.2f", x))
                                    .toList()
                            + "; target <= 2x"
                            + (v == Variant.BESIDE ? "; slow events confirmed in all rounds: " + slowConfirmed : ""));
        }
    }
}
