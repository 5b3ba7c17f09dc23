package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.test.TcpProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the operations kit's tests run against: a relay server on the local PostgreSQL (reached through a
 * {@link TcpProxy}, so a test can take the database away) relaying one source, {@code orders}, to a
 * webhook route named {@code billing} (which refuses {@code invoice.sent}: those events die), a webhook
 * route named {@code payments} whose receiver answers 503 to the first delivery of each event (so one
 * event is retried before it is published) and a {@code log} route for every other type, with events
 * published on all three and one dead.
 */
public final class OpsFixture implements AutoCloseable {
    /** The operations kit, beside the modules. */
    static final Path KIT = Path.of("..", "ops").toAbsolutePath().normalize();

    final String table;
    final TestReceiver receiver;
    final HttpServer flaky;
    final TcpProxy database;
    final RelayServer server;
    final Outbox producer;
    public final String base;

    private OpsFixture(
            String table,
            TestReceiver receiver,
            HttpServer flaky,
            TcpProxy database,
            RelayServer server,
            Outbox producer) {
        this.table = table;
        this.receiver = receiver;
        this.flaky = flaky;
        this.database = database;
        this.server = server;
        this.producer = producer;
        this.base = "http://127.0.0.1:" + server.port();
    }

    /**
     * Starts the server as {@code user} on an existing table, or as the tests' user with {@code
     * create-schema}, and waits until events flowed to both routes and one is dead.
     *
     * @param table the outbox table
     * @param user the database user the relay runs as
     * @param createSchema whether the server creates the table
     */
    public static OpsFixture start(String table, String user, boolean createSchema) throws IOException {
        TestReceiver receiver = new TestReceiver();
        HttpServer flaky = flakyReceiver();
        AutoCloseable stopFlaky = () -> flaky.stop(0);
        TcpProxy database = null;
        RelayServer server = null;
        try {
            receiver.refusedTypes.add("invoice.sent");
            database = new TcpProxy("127.0.0.1", 5432);
            String url = TestSupport.PG_URL.replaceFirst("//[^/]+/", "//127.0.0.1:" + database.port() + "/");
            server = TestSupport.start(TestSupport.HEAD
                    + """
                      - name: orders
                        jdbc-url: %s
                        user: %s
                        table: %s
                        create-schema: %s
                        relay:
                          poll-interval: 300ms
                          max-attempts: 3
                          backoff: {base: 200ms, max: 1s}
                        routes:
                          - name: billing
                            types: ["order.*", "invoice.*"]
                            transport:
                              webhook:
                                allow-private-networks: true
                                endpoints:
                                  - url: %s
                                    secret: %s
                          - name: payments
                            types: ["payment.*"]
                            transport:
                              webhook:
                                allow-private-networks: true
                                endpoints:
                                  - url: http://127.0.0.1:%d/hook
                                    secret: %s
                          - types: ["*"]
                            transport: log
                    """.formatted(
                                    url,
                                    user,
                                    table,
                                    createSchema,
                                    receiver.url(),
                                    TestReceiver.SECRET,
                                    flaky.getAddress().getPort(),
                                    TestReceiver.SECRET));
            Outbox producer =
                    Outbox.builder(TestSupport.postgres()).table(table).build();
            OpsFixture f = new OpsFixture(table, receiver, flaky, database, server, producer);
            f.append("order.placed", "o-1");
            f.append("audit.logged", "o-1");
            f.append("payment.taken", "o-1");
            f.append("invoice.sent", "o-1");
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode s = f.stats();
                return s.path("dead").asLong() == 1
                        && s.path("pending").asLong() == 0
                        && s.path("relayed").path("published").asLong() == 3
                        && s.path("relayed").path("retried").asLong() == 1;
            });
            return f;
        } catch (IOException | RuntimeException | Error e) {
            TestSupport.cleanUp(table, stopFlaky, receiver, database, server);
            throw e;
        }
    }

    /** A webhook receiver that answers 503 to the first delivery of each event and 204 to the next. */
    private static HttpServer flakyReceiver() throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        http.createContext("/hook", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                boolean first = seen.add(String.valueOf(ex.getRequestHeaders().getFirst("webhook-id")));
                ex.sendResponseHeaders(first ? 503 : 204, -1);
            }
        });
        http.start();
        return http;
    }

    OutboxEvent append(String type, String order) {
        return producer.inTransaction(c -> producer.append(
                c,
                OutboxEvent.builder(type)
                        .aggregate("order", order)
                        .jsonPayload("{\"n\":1}")
                        .build()));
    }

    public JsonNode stats() {
        TestSupport.Response r = TestSupport.http("GET", base + "/api/sources/orders/stats", TestSupport.TOKEN, null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    /** @return a file of the operations kit, read as text */
    public static String kitFile(String relative) throws IOException {
        return Files.readString(KIT.resolve(relative));
    }

    @Override
    public void close() {
        TestSupport.cleanUp(table, () -> flaky.stop(0), receiver, database, server);
    }
}
