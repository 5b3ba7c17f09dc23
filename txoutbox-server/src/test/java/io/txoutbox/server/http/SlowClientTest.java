package io.txoutbox.server.http;

import static io.txoutbox.server.TestSupport.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.yaml.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
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
public class SlowClientTest {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String table = TestSupport.uniqueTable("srv_slow");
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Socket> closedSockets = java.util.Collections.synchronizedList(new ArrayList<>());
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
        // Bounds on incomplete requests above the 51 of this test: the request timeout alone ends them.
        start("request-timeout: 3s\n  max-incomplete-requests: 100\n  max-incomplete-requests-per-client: 100");
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
    void three_hundred_trickling_connections_neither_delay_health_nor_ready_and_are_closed() throws Exception {
        start("request-timeout: 10s");
        try (Trickler slow = new Trickler(server.port(), 300)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> slow.rounds() >= 3);

            // A bound, not a measurement: before the fix these waited for the request timeout (10 s).
            assertThat(get("/health", null, Duration.ofSeconds(5))).isEqualTo(200);
            assertThat(get("/ready", null, Duration.ofSeconds(5))).isEqualTo(200);

            await().atMost(Duration.ofSeconds(30)).until(() -> slow.closedByServer() == 300);
        }
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
    void a_client_trickling_more_requests_than_its_share_loses_its_longest_waiting_connections() throws Exception {
        // A request timeout longer than the test: only the bound per client closes connections here.
        start("request-timeout: 60s\n  max-connections: 16\n  max-incomplete-requests-per-client: 4");
        AtomicInteger closedByServer = new AtomicInteger();
        trickleHealthChecks(20, closedByServer);
        await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer.get() == 16);
        assertThat(server.connections()).isEqualTo(4);
        // Which four stay depends on the order Jetty's threads open the connections in: not asserted.
        assertThat(closedSockets).hasSize(16).isSubsetOf(sockets);
        assertThat(get("/health", null, Duration.ofSeconds(5))).isEqualTo(200);
    }

    @Test
    void incomplete_requests_beyond_the_connection_cap_are_refused_in_the_file() {
        assertThatThrownBy(() -> start("max-connections: 16\n  max-incomplete-requests: 16"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("admin.max-incomplete-requests: 16 is out of range; it must be between 1 and 15");
        assertThatThrownBy(() -> start("max-incomplete-requests: 10\n  max-incomplete-requests-per-client: 11"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "admin.max-incomplete-requests-per-client: 11 is out of range; it must be between 1 and 10");
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
                                    closedSockets.add(s);
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
                    closedSockets.add(s);
                    closedByServer.incrementAndGet();
                },
                "slow-client");
        t.setDaemon(true);
        tricklers.add(t);
        t.start();
    }

    private int get(String path, String token) throws IOException, InterruptedException {
        return get(path, token, Duration.ofSeconds(2));
    }

    private int get(String path, String token, Duration timeout) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(timeout);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * Many connections on one thread that each sent the start of a {@code GET /health} and then add one
     * header byte every 100 ms, for ever: only the server can end them.
     */
    private static final class Trickler implements AutoCloseable {
        private final List<SocketChannel> open = new ArrayList<>();
        private final AtomicInteger closedByServer = new AtomicInteger();
        private final AtomicInteger rounds = new AtomicInteger();
        private final Thread thread;
        private volatile boolean running = true;

        Trickler(int port, int connections) throws IOException {
            for (int i = 0; i < connections; i++) {
                SocketChannel c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                c.write(ByteBuffer.wrap(
                        "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII)));
                c.configureBlocking(false);
                open.add(c);
            }
            thread = new Thread(this::trickle, "trickler");
            thread.setDaemon(true);
            thread.start();
        }

        private void trickle() {
            ByteBuffer in = ByteBuffer.allocate(4096);
            while (running) {
                for (java.util.Iterator<SocketChannel> it = open.iterator(); it.hasNext(); ) {
                    SocketChannel c = it.next();
                    try {
                        in.clear();
                        if (c.read(in) < 0) {
                            throw new IOException("closed by the server");
                        }
                        c.write(ByteBuffer.wrap(new byte[] {'a'}));
                    } catch (IOException closed) {
                        closedByServer.incrementAndGet();
                        it.remove();
                        try {
                            c.close();
                        } catch (IOException ignored) {
                            // Already closed.
                        }
                    }
                }
                rounds.incrementAndGet();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        int closedByServer() {
            return closedByServer.get();
        }

        int rounds() {
            return rounds.get();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(5000);
            for (SocketChannel c : open) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // Already closed.
                }
            }
        }
    }
}
