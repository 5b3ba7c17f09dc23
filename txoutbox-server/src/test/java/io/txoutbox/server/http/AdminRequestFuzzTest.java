package io.txoutbox.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The admin server's request handling under fuzzed bytes (RELIABILITY.md, "Fuzzing"), in process: raw
 * request bytes (request line, headers, query with percent-escapes, bodies, several requests on one
 * connection) go through Jetty's parser and the admin routes of a server relaying a real PostgreSQL
 * table. Every answer is a 2xx, 3xx or 4xx (or 505 for an HTTP version Jetty does not speak): never a
 * 500 (an exception in a route), never another 5xx.
 * {@code TOKEN} in the input is replaced by the admin token, so that the fuzzer reaches the routes behind
 * it.
 */
class AdminRequestFuzzTest {
    private static final Pattern STATUS = Pattern.compile("(?m)^HTTP/1\\.[01] (\\d{3})");
    private static final String TABLE = TestSupport.uniqueTable("srv_fuzz");
    private static final java.net.URI DATABASE = java.net.URI.create(TestSupport.PG_URL.substring("jdbc:".length()));

    private static RelayServer server;
    private static AdminServer local;

    @BeforeAll
    static void start() throws Exception {
        server = TestSupport.start(TestSupport.HEAD + """
                  - name: fuzz
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    transport: log
                """.formatted(TestSupport.PG_URL, TestSupport.PG_USER, TABLE));
        // A short idle timeout, so that a request whose body never arrives whole (a Content-Length beyond
        // the bytes sent) is answered within the exchange's wait rather than after the default 30 s.
        ServerConfig.Admin admin = ConfigLoader.parse(
                        TestSupport.HEAD.replace("  port: 0\n", "  port: 0\n  idle-timeout: 2s\n")
                                + "  - {name: x, jdbc-url: 'jdbc:h2:mem:x', transport: log}\n",
                        k -> null)
                .admin();
        local = AdminServer.local(admin, server::sources, server.registry());
    }

    @AfterAll
    static void stop() {
        if (local != null) {
            local.close();
        }
        // Dropping the table opens a connection of its own: to the same database, outside any request.
        try (SilentCloseable database = BugDetectors.allowNetworkConnections(
                (host, port) -> port == DATABASE.getPort() && host.equals(DATABASE.getHost()))) {
            TestSupport.cleanUp(TABLE, server);
        }
    }

    @FuzzTest(maxDuration = "10m")
    void any_request_bytes_are_answered_without_a_server_error(byte[] input) throws Exception {
        String text = new String(input, StandardCharsets.ISO_8859_1).replace("TOKEN", TestSupport.TOKEN);
        String answer;
        // The routes' own database: the pool may open a connection to it during any request (Jazzer's
        // SSRF detector flagged that, its second finding); nothing else may be reached.
        try (SilentCloseable database = BugDetectors.allowNetworkConnections(
                (host, port) -> port == DATABASE.getPort() && host.equals(DATABASE.getHost()))) {
            answer = local.exchange(text.getBytes(StandardCharsets.ISO_8859_1), Duration.ofSeconds(5));
        }
        Matcher status = STATUS.matcher(answer);
        while (status.find()) {
            int code = Integer.parseInt(status.group(1));
            // 505 is Jetty's parser refusing a version it does not speak (HTTP/2.1), before any route: the
            // fuzzer's first finding, an answer about the request rather than a failure of the server.
            assertThat(code < 500 || code == 505)
                    .as("status %d of an answer to %s:%n%s", code, text, answer)
                    .isTrue();
        }
    }
}
