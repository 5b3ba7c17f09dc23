package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.txoutbox.server.cli.RelayServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Route isolation in the relay server: each source routes {@code fast.*} to one webhook receiver and
 * {@code slow.*} to another whose requests wait on a latch. The fast route's events are published and
 * marked while the slow receiver still holds its requests; a route that never answers times out and
 * is retried without touching the fast route; ordered mode keeps each aggregate's order across the two
 * routes.
 */
class SlowRouteIsolationTest {
    private static final String RUN = TestSupport.randomHex();
    private static final String FREE = "srv_iso_free_" + RUN;
    private static final String MUTE = "srv_iso_mute_" + RUN;
    private static final String ORDERED = "srv_iso_ord_" + RUN;
    /** Every acceptance of every receiver, numbered, so that order across receivers can be checked. */
    private static final AtomicLong SEQUENCE = new AtomicLong();

    static final List<Receiver> receivers = new ArrayList<>();
    static Receiver freeFast;
    static Receiver freeSlow;
    static Receiver muteFast;
    static Receiver muteSlow;
    static Receiver orderedFast;
    static Receiver orderedSlow;
    static RelayServer server;

    /** A webhook receiver that answers 204 once its gate is open; it does not check signatures. */
    static final class Receiver implements AutoCloseable {
        private final HttpServer http;
        volatile CountDownLatch gate = new CountDownLatch(0);
        /** Bodies of the requests it received, whether answered or not. */
        final List<String> started = new CopyOnWriteArrayList<>();
        /** Bodies of the requests it answered 204, with their number in {@link #SEQUENCE}. */
        final Map<String, List<Long>> accepted = new ConcurrentHashMap<>();

        Receiver() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            http.createContext("/hook", this::handle);
            http.setExecutor(Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "iso-receiver");
                t.setDaemon(true);
                return t;
            }));
            http.start();
            receivers.add(this);
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort() + "/hook";
        }

        void close(boolean open) {
            gate = open ? new CountDownLatch(0) : new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        long acceptedCount() {
            return accepted.values().stream().mapToLong(List::size).sum();
        }

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                started.add(body);
                CountDownLatch g = gate;
                try {
                    if (!g.await(60, TimeUnit.SECONDS)) {
                        ex.sendResponseHeaders(503, -1);
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                accepted.computeIfAbsent(body, k -> new CopyOnWriteArrayList<>())
                        .add(SEQUENCE.incrementAndGet());
                ex.sendResponseHeaders(204, -1);
            }
        }

        @Override
        public void close() {
            gate.countDown();
            http.stop(0);
        }
    }

    private static String source(String name, String table, String relay, Receiver fast, Receiver slow) {
        return """
                  - name: %s
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                %s
                    relay:
                      batch-size: 10
                      poll-interval: 200ms
                      lease-duration: 30s
                      max-attempts: 100
                      backoff: {base: 200ms, max: 1s}
                %s
                    routes:
                %s%s""".formatted(
                        name,
                        TestSupport.PG_URL,
                        TestSupport.PG_USER,
                        table,
                        name.equals("ord") ? "    ordered: true" : "",
                        relay,
                        TestSupport.webhookRoute("[\"fast.*\"]", fast.url()),
                        TestSupport.webhookRoute("[\"slow.*\"]", slow.url()));
    }

    @BeforeAll
    static void start() throws Exception {
        freeFast = new Receiver();
        freeSlow = new Receiver();
        muteFast = new Receiver();
        muteSlow = new Receiver();
        orderedFast = new Receiver();
        orderedSlow = new Receiver();
        server = TestSupport.start(TestSupport.HEAD
                + source("free", FREE, "      publish-timeout: 20s", freeFast, freeSlow)
                + source("mute", MUTE, "      publish-timeout: 2s", muteFast, muteSlow)
                + source("ord", ORDERED, "      publish-timeout: 20s", orderedFast, orderedSlow));
    }

    @AfterAll
    static void stop() {
        for (Receiver r : receivers) {
            r.open();
        }
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            receivers.forEach(Receiver::close);
            TestSupport.dropTable(FREE);
            TestSupport.dropTable(MUTE);
            TestSupport.dropTable(ORDERED);
        }
    }

    /** Inserts, in this order, events of the given types for one aggregate each, bodies naming tag and index. */
    private static void insert(String table, String tag, int from, int to, String typeExpression) {
        sql("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " SELECT gen_random_uuid(), 'iso', '" + tag + "-' || i, " + typeExpression + ","
                + " convert_to('{\"tag\":\"" + tag + "\",\"i\":' || i || '}', 'UTF8')"
                + " FROM generate_series(" + from + ", " + to + ") i ORDER BY i");
    }

    private static String body(String tag, int i) {
        return "{\"tag\":\"" + tag + "\",\"i\":" + i + "}";
    }

    private static long rows(String table, String type) {
        return count("SELECT count(*) FROM " + table + " WHERE event_type = '" + type + "'");
    }

    @Test
    void a_slow_route_does_not_hold_back_a_fast_routes_events_and_each_arrives_once() {
        freeSlow.close(false);
        // Every batch mixes both routes: even i to the fast route, odd i to the slow one.
        insert(FREE, "a", 0, 39, "CASE WHEN i % 2 = 0 THEN 'fast.placed' ELSE 'slow.placed' END");

        // The fast route's events are published and their rows gone while the slow receiver holds all of its
        // requests unanswered: no fast event waited for a slow one of its batch.
        await().atMost(Duration.ofSeconds(20)).until(() -> rows(FREE, "fast.placed") == 0);
        assertThat(freeFast.acceptedCount()).isEqualTo(20);
        assertThat(freeSlow.acceptedCount()).isZero();
        assertThat(freeSlow.started).isNotEmpty();
        assertThat(rows(FREE, "slow.placed")).isEqualTo(20);

        // The relay goes on claiming while those slow parts are out: later fast events flow too.
        insert(FREE, "b", 0, 19, "'fast.placed'");
        await().atMost(Duration.ofSeconds(20)).until(() -> rows(FREE, "fast.placed") == 0);
        assertThat(freeSlow.acceptedCount()).isZero();

        freeSlow.open();
        await().atMost(Duration.ofSeconds(30)).until(() -> rows(FREE, "slow.placed") == 0);
        for (int i = 0; i < 40; i++) {
            Receiver r = i % 2 == 0 ? freeFast : freeSlow;
            assertThat(r.accepted.get(body("a", i))).as("event a-%d", i).hasSize(1);
        }
        for (int i = 0; i < 20; i++) {
            assertThat(freeFast.accepted.get(body("b", i))).as("event b-%d", i).hasSize(1);
        }
        assertThat(freeSlow.started).doesNotHaveDuplicates();
        assertThat(count("SELECT count(*) FROM " + FREE)).isZero();
    }

    @Test
    void a_route_that_never_answers_times_out_and_retries_without_touching_the_others() {
        muteSlow.close(false);
        insert(MUTE, "m", 0, 9, "CASE WHEN i % 2 = 0 THEN 'fast.placed' ELSE 'slow.placed' END");

        await().atMost(Duration.ofSeconds(20)).until(() -> rows(MUTE, "fast.placed") == 0);
        // The slow route's events time out at the route deadline and come back for a retry, pending...
        await().atMost(Duration.ofSeconds(30))
                .until(() -> count("SELECT count(*) FROM " + MUTE + " WHERE status = 'pending' AND attempts >= 2"
                                + " AND last_error IS NOT NULL")
                        == 5);
        // ...while fast events that come meanwhile go through, each once.
        insert(MUTE, "n", 0, 9, "'fast.placed'");
        await().atMost(Duration.ofSeconds(20)).until(() -> rows(MUTE, "fast.placed") == 0);
        assertThat(count("SELECT count(*) FROM " + MUTE + " WHERE status = 'dead'"))
                .isZero();
        assertThat(muteSlow.acceptedCount()).isZero();

        muteSlow.open();
        await().atMost(Duration.ofSeconds(60)).until(() -> rows(MUTE, "slow.placed") == 0);
        for (int i = 0; i < 10; i++) {
            if (i % 2 == 0) {
                assertThat(muteFast.accepted.get(body("m", i)))
                        .as("event m-%d", i)
                        .hasSize(1);
            } else {
                // Timed out and sent again: at least once (the receiver answered the held requests too).
                assertThat(muteSlow.accepted.get(body("m", i)))
                        .as("event m-%d", i)
                        .isNotEmpty();
            }
            assertThat(muteFast.accepted.get(body("n", i))).as("event n-%d", i).hasSize(1);
        }
    }

    @Test
    void ordered_mode_keeps_each_aggregates_order_across_a_slow_and_a_fast_route() {
        orderedSlow.close(false);
        // Ten aggregates, each: fast, slow, fast, slow (appended in that order, aggregate by aggregate).
        sql("INSERT INTO " + ORDERED + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " SELECT gen_random_uuid(), 'iso', 'o-' || a, CASE WHEN e % 2 = 0 THEN 'fast.placed'"
                + " ELSE 'slow.placed' END, convert_to('{\"tag\":\"o' || a || '\",\"i\":' || e || '}', 'UTF8')"
                + " FROM generate_series(0, 9) a, generate_series(0, 3) e ORDER BY e, a");

        // Each aggregate's first (fast) event arrives; its second waits in the slow receiver, and so the
        // third (fast again) is not claimed: it is still pending, never attempted.
        await().atMost(Duration.ofSeconds(20)).until(() -> orderedFast.acceptedCount() == 10);
        await().atMost(Duration.ofSeconds(20)).until(() -> orderedSlow.started.size() == 10);
        assertThat(count("SELECT count(*) FROM " + ORDERED + " WHERE event_type = 'fast.placed' AND attempts = 0"))
                .isEqualTo(10);
        assertThat(orderedFast.acceptedCount()).isEqualTo(10);

        orderedSlow.open();
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM " + ORDERED) == 0);
        for (int a = 0; a < 10; a++) {
            Map<Integer, Long> at = new HashMap<>();
            for (int e = 0; e < 4; e++) {
                Receiver r = e % 2 == 0 ? orderedFast : orderedSlow;
                List<Long> seen = r.accepted.get(body("o" + a, e));
                assertThat(seen).as("aggregate o-%d event %d", a, e).hasSize(1);
                at.put(e, seen.get(0));
            }
            assertThat(at.get(0)).isLessThan(at.get(1));
            assertThat(at.get(1)).isLessThan(at.get(2));
            assertThat(at.get(2)).isLessThan(at.get(3));
        }
    }
}
