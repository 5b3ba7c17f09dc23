package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.cli.TxoutboxCli;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.test.Sql;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** Shared pieces of the server tests: the local PostgreSQL, unique tables, HTTP calls, child JVMs. */
public final class TestSupport {
    public static final String PG_URL = LocalPostgres.URL;
    public static final String PG_USER = LocalPostgres.USER;
    public static final String TOKEN = "test-token-0123456789abcdef";
    public static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static HikariDataSource pool;

    private TestSupport() {}

    public static synchronized HikariDataSource postgres() {
        if (pool == null) {
            pool = LocalPostgres.pool("server-tests", 4);
        }
        return pool;
    }

    public static String uniqueTable(String prefix) {
        return prefix + "_" + randomHex();
    }

    /** @return eight random hex digits, to make the names a test class creates its own */
    public static String randomHex() {
        return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    }

    public static void sql(String statement) {
        Sql.execute(postgres(), statement);
    }

    public static long count(String query) {
        return Sql.count(postgres(), query);
    }

    public static void dropTable(String table) {
        sql("DROP TABLE IF EXISTS " + table + " CASCADE");
        sql("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
    }

    /** How every test configuration starts: the admin API on a free loopback port with the test token. */
    public static final String HEAD = """
            admin:
              host: 127.0.0.1
              port: 0
              token: %s
            sources:
            """.formatted(TOKEN);

    /**
     * @param transport a transport and its keys, as YAML under {@code transport:} ({@code "sqs:\n  region:
     *     eu-west-1"})
     * @return a configuration with one source on the local PostgreSQL (its table never created) and one route
     *     of every event type to that transport, for the tests that read a transport's settings
     */
    public static String oneRoute(String transport) {
        return HEAD + """
                  - name: orders
                    jdbc-url: %s
                    user: %s
                    table: srv_never_created
                    routes:
                      - types: ["*"]
                        transport:
                """.formatted(PG_URL, PG_USER) + transport.indent(10);
    }

    /** @return the configuration, with no environment */
    public static ServerConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, k -> null);
    }

    /**
     * @return a source on the local PostgreSQL that creates its table and polls often, for the broker tests;
     *     its {@code routes:} follow
     */
    public static String brokerSource(String name, String table) {
        return """
                  - name: %s
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    relay:
                      poll-interval: 200ms
                      backoff: {base: 200ms, max: 1s}
                """.formatted(name, PG_URL, PG_USER, table);
    }

    /** @return a server started from a configuration, placeholders read from this process's environment */
    public static RelayServer start(String yaml) {
        return RelayServer.start(ConfigLoader.parse(yaml, System.getenv()::get));
    }

    /**
     * The end of a test class: closes what it started (a {@code null} is what it did not get to start),
     * last started first, then drops its table.
     */
    public static void cleanUp(String table, AutoCloseable... started) {
        for (int i = started.length - 1; i >= 0; i--) {
            if (started[i] != null) {
                try {
                    started[i].close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + started[i] + " failed", e);
                }
            }
        }
        dropTable(table);
    }

    /** A configuration with one source on the local PostgreSQL, relaying to a webhook receiver. */
    public static String yaml(String table, String receiverUrl, boolean createSchema, String relayExtra) {
        return HEAD
                + """
                  - name: orders
                    jdbc-url: %s
                    user: %s
                    password: not-a-real-password-xyz
                    table: %s
                    create-schema: %s
                    relay:
                      poll-interval: 500ms
                      backoff: {base: 200ms, max: 1s}
                %s
                    routes:
                %s
                      - types: ["*"]
                        transport: log
                """.formatted(
                                PG_URL,
                                PG_USER,
                                table,
                                createSchema,
                                relayExtra,
                                webhookRoute("[\"order.*\", \"invoice.*\"]", receiverUrl));
    }

    /**
     * @param types the route's {@code types:} list, as YAML
     * @return an entry of a source's {@code routes:} that relays those types to the webhook receiver at the
     *     URL, signed with {@link TestReceiver#SECRET}
     */
    public static String webhookRoute(String types, String receiverUrl) {
        return """
                      - types: %s
                        transport:
                          webhook:
                            allow-private-networks: true
                            endpoints:
                              - url: %s
                                secret: %s
                """.formatted(types, receiverUrl, TestReceiver.SECRET);
    }

    /** Runs the real psql client, as any program in any language would write the table. */
    static String psql(String statement) throws Exception {
        Process p = new ProcessBuilder(List.of(
                        "psql",
                        "-h",
                        "localhost",
                        "-U",
                        PG_USER,
                        "-d",
                        "test",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-c",
                        statement))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError("psql failed: " + out);
        }
        return out;
    }

    /** @return a loopback port that nothing listens on right now */
    public static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public static Path write(Path dir, String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    public record Response(int status, String body) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    public static Response http(String method, String url, String token, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + url + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A GET of a request target exactly as given, on a socket of its own: for targets that {@link URI}
     * refuses to build, such as a malformed percent-escape.
     *
     * @param token the bearer token, or {@code null}
     * @return the status and the body (the connection is closed after it)
     */
    public static Response rawGet(int port, String target, String token) throws IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            String request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(answer.substring(9, 12));
            int bodyStart = answer.indexOf("\r\n\r\n");
            return new Response(status, bodyStart < 0 ? "" : answer.substring(bodyStart + 4));
        }
    }

    /**
     * @param stats a source's {@code /stats} answer
     * @param name a route's name
     * @return the entry of {@code routes} with that name; the test fails when there is none
     */
    public static JsonNode route(JsonNode stats, String name) {
        for (JsonNode r : stats.path("routes")) {
            if (r.path("name").asText().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no route " + name + " in " + stats.path("routes"));
    }

    /** What {@link TxoutboxCli#execute} printed and returned. */
    public record CliResult(int exitCode, String out, String err) {}

    public static CliResult cli(Map<String, String> env, String... args) {
        return cli(List.of(), env, args);
    }

    /** As {@link #cli(Map, String...)}, with more commands: the demo's. */
    public static CliResult cli(List<Object> commands, Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = TxoutboxCli.execute(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env,
                commands,
                args);
        return new CliResult(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Creates the tables of a configuration's sources the way an operator would, with {@code txoutbox schema
     * --apply --config FILE}, and fails the test when the command does not succeed.
     *
     * @return what the command printed and returned
     */
    public static CliResult applySchema(Path config) {
        CliResult applied = cli(Map.of(), "schema", "--apply", "--config", config.toString());
        assertThat(applied.exitCode()).as(applied.err()).isZero();
        return applied;
    }

    /** Starts {@code txoutbox ARGS} in a child JVM with this test's classpath. */
    public static Process childJvm(Path output, String... args) throws IOException {
        return childJvm(TxoutboxCli.class.getName(), output, args);
    }

    /** Starts {@code main ARGS} in a child JVM with this test's classpath (the demo's main, say). */
    public static Process childJvm(String main, Path output, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                main));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }
}
