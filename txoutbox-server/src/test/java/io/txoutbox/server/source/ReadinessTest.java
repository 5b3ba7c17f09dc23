package io.txoutbox.server.source;

import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariPoolMXBean;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.test.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /ready} answers from what the relays saw of their database, never with a database round trip of
 * its own: a flood of unauthenticated requests takes no connection from the relays' small pool, and a
 * database that goes away still turns it to 503 (and back), on the real PostgreSQL.
 */
class ReadinessTest {
    private static final URI PG = URI.create(TestSupport.PG_URL.substring("jdbc:".length()));

    private final String table = TestSupport.uniqueTable("srv_ready");
    private TcpProxy proxy;
    private RelayServer server;

    @AfterEach
    void cleanUp() {
        TestSupport.cleanUp(table, proxy, server);
    }

    @Test
    void a_flood_of_ready_requests_takes_no_connection_from_the_pool_and_the_relay_keeps_publishing() throws Exception {
        server = TestSupport.start(source(TestSupport.PG_URL));
        RelaySource source = server.source("flood");
        HikariPoolMXBean pool = source.poolStats();
        String ready = "http://127.0.0.1:" + server.port() + "/ready";
        HttpClient http = HttpClient.newHttpClient();
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger notReady = new AtomicInteger();
        AtomicInteger mostWaiting = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            threads.add(daemon(() -> {
                HttpRequest get = HttpRequest.newBuilder(URI.create(ready))
                        .timeout(Duration.ofSeconds(20))
                        .build();
                while (flooding.get()) {
                    try {
                        int status = http.send(get, HttpResponse.BodyHandlers.discarding())
                                .statusCode();
                        (status == 200 ? answered : notReady).incrementAndGet();
                    } catch (Exception e) {
                        notReady.incrementAndGet();
                    }
                }
            }));
        }
        // The relay's default pool: what one listening relay holds at once, and one for the server's own checks.
        int poolSize = Relay.Builder.connectionsAtOnce(Relay.Builder.DEFAULT_MAX_IN_FLIGHT_BATCHES, true) + 1;
        threads.add(daemon(() -> {
            while (flooding.get()) {
                // A thread waiting while the pool still grows (it keeps one idle connection and adds more on
                // demand) is not starved; one waiting while every connection of the pool is out is.
                int waiting = pool.getThreadsAwaitingConnection();
                if (waiting > 0 && pool.getTotalConnections() >= poolSize && pool.getIdleConnections() == 0) {
                    mostWaiting.accumulateAndGet(waiting, Math::max);
                }
                Thread.onSpinWait();
            }
        }));
        try (Outbox producer =
                Outbox.builder(TestSupport.postgres()).table(table).build()) {
            long started = System.nanoTime();
            await().atMost(Duration.ofSeconds(30)).until(() -> answered.get() >= 500);
            // The relay publishes while the flood goes on.
            for (int i = 0; i < 20; i++) {
                String order = "o-" + i;
                producer.inTransaction(c -> producer.append(
                        c,
                        OutboxEvent.builder("order.placed")
                                .aggregate("order", order)
                                .jsonPayload("{}")
                                .build()));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM " + table) == 0);
            await().atMost(Duration.ofSeconds(60)).until(() -> answered.get() >= 2000);
            long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
            flooding.set(false);
            for (Thread t : threads) {
                t.join(30_000);
            }
            assertThat(notReady.get()).as("answers other than 200").isZero();
            assertThat(mostWaiting.get())
                    .as("threads that waited for a connection while every one of the relay's pool was out")
                    .isZero();
            // At most one background check of the database per freshness interval, whatever the requests.
            assertThat(source.readiness().checks()).isLessThanOrEqualTo(2 + seconds / Readiness.FRESH.toSeconds());
        } finally {
            flooding.set(false);
        }
    }

    @Test
    void ready_turns_503_while_the_database_is_cut_off_and_200_once_it_is_back() throws Exception {
        proxy = new TcpProxy(PG.getHost(), PG.getPort());
        server = TestSupport.start(source("jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + PG.getPath()));
        String base = "http://127.0.0.1:" + server.port();
        assertThat(http("GET", base + "/ready", null, null).status()).isEqualTo(200);

        proxy.cut();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http("GET", base + "/ready", null, null).status() == 503);
        TestSupport.Response r = http("GET", base + "/ready", null, null);
        assertThat(r.json().path("sources").path("flood").asText()).isEqualTo("not ready");
        assertThat(r.json().path("reasons").path("flood").asText()).startsWith("the database does not answer: ");

        proxy.restore();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http("GET", base + "/ready", null, null).status() == 200);
    }

    private static Thread daemon(Runnable work) {
        Thread t = new Thread(work, "ready-flood");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private String source(String jdbcUrl) {
        // Sixteen flooding clients on one address: above the default per-client bound of requests still
        // arriving (8), which would close some of their connections on a slow machine; this test is about
        // where /ready's answer comes from, SlowClientTest about that bound.
        return TestSupport.HEAD.replace("  port: 0\n", "  port: 0\n  max-incomplete-requests-per-client: 32\n")
                + """
                  - name: flood
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    connect-timeout: 1s
                    relay:
                      poll-interval: 200ms
                      backoff: {base: 200ms, max: 1s}
                    transport: log
                """.formatted(jdbcUrl, TestSupport.PG_USER, table);
    }
}
