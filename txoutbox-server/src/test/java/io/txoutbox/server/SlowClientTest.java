package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Slow and many clients against the running admin server, on real sockets: slowloris connections that
 * trickle header bytes and a client that trickles a body cannot stop /health or the API from answering,
 * the server closes them after its request timeout, and connections are capped.
 */
class SlowClientTest {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String table = TestSupport.uniqueTable("srv_slow");
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> tricklers = new ArrayList<>();
    private RelayServer server;

    @AfterEach
    void cleanUp() {
        tricklers.forEach(Thread::interrupt);
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // Closed by the server already.
            }
        }
        TestSupport.cleanUp(table, server);
    }

    @Test
    void fifty_slowloris_connections_and_a_slow_body_do_not_stop_health_or_the_api() throws Exception {
        start("request-timeout: 3s");
        AtomicInteger closedByServer = new AtomicInteger();
        trickleHealthChecks(50, closedByServer);
        trickle(
                "POST /api/sources/slow/revive HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                        + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                "1\r\n \r\n".repeat(200),
                closedByServer);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.connections() >= 51);

        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> get("/health", null) == 200);
        await().atMost(Duration.ofSeconds(5))
                .ignoreExceptions()
                .until(() -> get("/api/sources/slow/stats", TOKEN) == 200);
        await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> get("/ready", null) == 200);

        // However steadily they trickle, the server ends them after the request timeout.
        await().atMost(Duration.ofSeconds(20)).until(() -> closedByServer.get() == 51);
    }

    @Test
    void a_huge_declared_body_is_refused_before_it_is_read() throws Exception {
        start("request-timeout: 3s");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /api/sources/slow/revive HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN
                            + "\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertThat(answer).isEqualTo("HTTP/1.1 413");
        }
    }

    @Test
    void connections_beyond_the_cap_wait_and_health_answers_once_the_slow_ones_are_closed() throws Exception {
        start("request-timeout: 2s\n  max-connections: 8");
        AtomicInteger closedByServer = new AtomicInteger();
        trickleHealthChecks(20, closedByServer);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.connections() == 8);
        assertThat(server.connections()).isEqualTo(8);
        // The slow ones are closed after the request timeout, so the queue moves and health answers.
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> get("/health", null) == 200);
    }

    private void start(String limits) {
        server = RelayServer.start(ConfigLoader.parse(
                """
                admin:
                  host: 127.0.0.1
                  port: 0
                  token: %s
                  %s
                sources:
                  - name: slow
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    transport: log
                """.formatted(TOKEN, limits, TestSupport.PG_URL, TestSupport.PG_USER, table), k -> null));
    }

    /** Opens {@code n} connections that each send a {@code GET /health} one header byte every 100 ms. */
    private void trickleHealthChecks(int n, AtomicInteger closedByServer) throws IOException {
        for (int i = 0; i < n; i++) {
            trickle(
                    "GET /health HTTP/1.1\r\nHost: x\r\n",
                    "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                    closedByServer);
        }
    }

    /** Opens a connection, sends {@code head} at once, then one byte of {@code tail} every 100 ms. */
    private void trickle(String head, String tail, AtomicInteger closedByServer) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        sockets.add(s);
        Thread t = new Thread(
                () -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        InputStream in = s.getInputStream();
                        out.write(head.getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        s.setSoTimeout(1);
                        for (int i = 0; i < tail.length(); i++) {
                            Thread.sleep(100);
                            out.write(tail.charAt(i));
                            out.flush();
                            try {
                                if (in.read() < 0) {
                                    closedByServer.incrementAndGet();
                                    return;
                                }
                            } catch (java.net.SocketTimeoutException stillOpen) {
                                // Nothing from the server yet: the connection is still open.
                            }
                        }
                        return;
                    } catch (IOException e) {
                        // The server closed the connection.
                    } catch (InterruptedException e) {
                        return;
                    }
                    closedByServer.incrementAndGet();
                },
                "slow-client");
        t.setDaemon(true);
        tricklers.add(t);
        t.start();
    }

    private int get(String path, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(2));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
