package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redaction by construction, tried from outside: distinct secrets are planted in every configuration
 * field that can hold one (database passwords in each spelling a driver accepts, with {@code @} and
 * {@code :} inside, URL-encoded; the admin token; a webhook signing secret and secret header values;
 * broker passwords; an event's payload and headers), every failure path is driven (an unparsable URL for
 * pgjdbc and for MariaDB, an unreachable PostgreSQL and H2, a login MariaDB refuses, YAML that does not
 * parse, a failing webhook, brokers that refuse the credentials, the dry run), each in a child JVM started
 * as an operator starts the jar, and no secret may appear on its standard output or error (which carry
 * the log) or in any HTTP answer, with the token or without.
 */
class SecretRedactionTest {
    private static final Pattern PIECES = Pattern.compile("[@:/?#;&,]");

    @TempDir
    Path dir;

    private final String table = TestSupport.uniqueTable("srv_redact");
    private final Map<String, String> secrets = new LinkedHashMap<>();
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.forEach(Process::destroyForcibly);
        TestSupport.dropTable(table);
        TestSupport.dropTable(table + "_b");
    }

    @Test
    void no_planted_secret_reaches_the_output_the_log_or_any_http_answer_on_any_failure_path() throws Exception {
        String token = secret("token", "tok-");
        String pgAmp = secret("pg-amp-password", "pgAmp-");
        String pgField = secret("pg-password-field", "pgField-");
        String pgQuery = secret("pg-query-password", "pgQuery-");
        String encodedPlain = "pgEncoded@:" + hex();
        secrets.put("pg-encoded-password (decoded)", encodedPlain);
        String pgEncoded = URLEncoder.encode(encodedPlain, StandardCharsets.UTF_8);
        secrets.put("pg-encoded-password", pgEncoded);
        String pgSlash = secret("pg-unparsable-password", "pgSlash-");
        String mariaParse = secret("mariadb-unparsable-password", "mParse-");
        String mariaUserInfo = "mUi" + hex() + "@" + hex() + ":" + hex();
        secrets.put("mariadb-userinfo-password", mariaUserInfo);
        String mariaAmp = secret("mariadb-amp-password", "mAmp-");
        String mariaFast = secret("mariadb-fail-fast-password", "mFast-");
        String h2 = secret("h2-password", "h2Pw-");
        String whsec = "whsec_" + Base64.getEncoder().encodeToString(hex().getBytes(StandardCharsets.UTF_8));
        secrets.put("webhook-secret", whsec);
        String bearer = secret("authorization-header", "hdrAuth-");
        String apiKey = secret("api-key-header", "hdrKey-");
        String rabbit = secret("rabbitmq-password", "rabbit-");
        String redis = secret("redis-password", "redis-");
        String redisUri = secret("redis-uri-password", "redisUri-");
        String nats = secret("nats-password", "nats-");
        String payload = secret("payload", "payload-");
        String headerValue = secret("event-header", "evHdr-");
        String yamlToken = secret("yaml-token", "yTok-");
        String yamlPassword = secret("yaml-password", "yPw-");
        int down = TestSupport.freePort();
        int refusing = TestSupport.freePort();

        // The long run: one source relays (to a webhook that refuses), the others wait for their databases.
        String serving = head(token)
                + source(
                        "pgok",
                        TestSupport.PG_URL + "?user=postgres&password=" + pgAmp,
                        pgField,
                        table,
                        webhook(refusing, whsec, bearer, apiKey))
                + source(
                        "unreach",
                        "jdbc:postgresql://127.0.0.1:" + down + "/test?password=" + pgQuery,
                        null,
                        "t",
                        log())
                + source(
                        "encoded",
                        "jdbc:postgresql://127.0.0.1:" + down + "/test?password=" + pgEncoded,
                        null,
                        "t",
                        log())
                + source("mparse", "jdbc:mariadb:127.0.0.1/test?user=root&password=" + mariaParse, null, "t", log())
                + "startup:\n  max-backoff: 1s\n";
        Path servingOut = dir.resolve("serving.txt");
        Process server = start(servingOut, "serving", serving, "run", "--duration", "120");

        String base = "http://127.0.0.1:" + port(server, servingOut);

        // The short runs, side by side while the long one serves: each fails and exits.
        String brokers = "rabbitmq: {host: 127.0.0.1, username: guest, password: " + rabbit + "}\n"
                + "      - types: [\"b.*\"]\n        transport:\n          redis: {uri: \"redis://:" + redisUri
                + "@127.0.0.1:6379/0\"}\n"
                + "      - types: [\"c.*\"]\n        transport:\n"
                + "          redis: {uri: \"redis://127.0.0.1:6379/1\", password: " + redis + "}\n"
                + "      - types: [\"d.*\"]\n        transport:\n"
                + "          nats: {servers: [\"nats://127.0.0.1:4222\"], username: u, password: " + nats + "}";
        Map<String, Path> failing = new LinkedHashMap<>();
        failing.put(
                "refused-login-userinfo",
                run(head(token)
                        + source(
                                "m",
                                "jdbc:mariadb://root:" + mariaUserInfo + "@127.0.0.1:3306/test",
                                null,
                                "t",
                                log())));
        failing.put(
                "refused-login-parameter",
                run(head(token)
                        + source(
                                "m",
                                "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=" + mariaAmp,
                                null,
                                "t",
                                log())));
        failing.put(
                "pgjdbc-unparsable",
                run(head(token)
                        + source(
                                "p", "jdbc:postgresql://127.0.0.1:5432/test/x?password=" + pgSlash, null, "t", log())));
        failing.put(
                "fail-fast-unparsable",
                run(head(token)
                        + source("m", "jdbc:mariadb:127.0.0.1/test?user=root&password=" + mariaFast, null, "t", log())
                        + "startup:\n  retry: false\n"));
        failing.put(
                "yaml-mapping-error",
                run("admin:\n  token: " + yamlToken + "\n  password: " + yamlPassword + ": x: y\nsources: []\n"));
        failing.put(
                "brokers-run",
                run(head(token)
                        + source("b", TestSupport.PG_URL + "?password=" + pgAmp, pgField, table + "_b", brokers)));
        failing.put(
                "check",
                run(
                        head(token)
                                + source(
                                        "u",
                                        "jdbc:postgresql://127.0.0.1:" + down + "/test?password=" + pgQuery,
                                        null,
                                        "t",
                                        brokers)
                                + source(
                                        "m",
                                        "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=" + mariaAmp,
                                        null,
                                        "t",
                                        log())
                                + source(
                                        "h",
                                        "jdbc:h2:tcp://127.0.0.1:" + down + "/x;USER=sa;PASSWORD=" + h2,
                                        null,
                                        "t",
                                        log()),
                        "--check"));

        // An event with secrets in its payload and headers fails until it is dead.
        await().atMost(Duration.ofSeconds(90))
                .until(() -> count("SELECT count(*) FROM information_schema.tables WHERE table_name = '" + table + "'")
                        == 1);
        TestSupport.sql("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " VALUES (gen_random_uuid(), 'order', 'o-1', 'order.placed', convert_to('{\"card\":\"" + payload
                + "\"}', 'UTF8'), '{\"x-tenant\":\"" + headerValue + "\"}')");
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> http(
                        "GET", base + "/api/sources/pgok/dead", token, null)
                .body()
                .contains("order.placed"));
        Map<String, String> answers = new LinkedHashMap<>();
        for (String path : List.of(
                "/health",
                "/ready",
                "/metrics",
                "/",
                "/dashboard.js",
                "/api/sources",
                "/api/sources/nope",
                "/api/sources/unreach/stats")) {
            answers.put(
                    "GET " + path + " (no token)",
                    http("GET", base + path, null, null).body());
            answers.put(
                    "GET " + path + " (wrong token)",
                    http("GET", base + path, "wrong-" + token, null).body());
        }
        for (String source : List.of("pgok", "unreach", "encoded", "mparse")) {
            for (String path : List.of("", "/stats", "/dead")) {
                String p = "/api/sources/" + source + path;
                answers.put("GET " + p, http("GET", base + p, token, null).body());
            }
            String revive = "/api/sources/" + source + "/revive";
            answers.put(
                    "POST " + revive,
                    http("POST", base + revive, token, "{\"type\": 1}").body());
        }
        answers.put(
                "POST bad JSON",
                http("POST", base + "/api/sources/pgok/revive", token, "{\"" + payload)
                        .body());
        String ready = answers.get("GET /ready (no token)");
        assertThat(ready).as("the waiting sources say why, redacted").contains("unreach", "encoded", "mparse", "****");

        server.destroy(); // SIGTERM: the graceful stop, and what it logs, is a path too
        for (Process child : children) {
            assertThat(child.waitFor(60, TimeUnit.SECONDS))
                    .as(child.info().toString())
                    .isTrue();
        }
        Map<String, String> outputs = new LinkedHashMap<>();
        outputs.put("serving", Files.readString(servingOut, StandardCharsets.UTF_8));
        for (Map.Entry<String, Path> run : failing.entrySet()) {
            outputs.put(run.getKey(), Files.readString(run.getValue(), StandardCharsets.UTF_8));
        }
        // The paths were taken: each failure is reported, by key.
        assertThat(outputs.get("refused-login-parameter"))
                .contains("sources[0].jdbc-url: the database refused the user or password");
        assertThat(outputs.get("pgjdbc-unparsable")).contains("sources[0].jdbc-url");
        assertThat(outputs.get("fail-fast-unparsable")).contains("sources[0].jdbc-url");
        assertThat(outputs.get("yaml-mapping-error")).contains("configuration error");
        assertThat(outputs.get("check")).contains("check failed");

        List<String> leaks = new ArrayList<>();
        outputs.forEach((where, text) -> leaks.addAll(leaks("output of " + where, text)));
        answers.forEach((where, text) -> leaks.addAll(leaks(where, text)));
        assertThat(leaks).as("secrets found").isEmpty();
    }

    private String secret(String name, String prefix) {
        String value = prefix + hex();
        secrets.put(name, value);
        return value;
    }

    private static String hex() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    }

    /**
     * @return every planted secret found in the text, and where: whole, or a piece of it between the
     *     characters where a driver that misreads a URL cuts it
     */
    private List<String> leaks(String where, String text) {
        List<String> found = new ArrayList<>();
        secrets.forEach((name, value) -> {
            for (String piece : PIECES.split(value)) {
                int at = text.indexOf(piece);
                if (piece.length() >= io.txoutbox.Redaction.MIN_LENGTH && at >= 0) {
                    found.add(name + (piece.equals(value) ? "" : " (a piece)") + " in " + where + ": ..."
                            + text.substring(Math.max(0, at - 120), Math.min(text.length(), at + piece.length() + 40))
                            + "...");
                }
            }
        });
        return found;
    }

    private static String head(String token) {
        return "admin:\n  host: 127.0.0.1\n  port: 0\n  token: " + token + "\nsources:\n";
    }

    private static String source(String name, String url, String password, String table, String transport) {
        return """
                  - name: %s
                    jdbc-url: "%s"
                %s    table: %s
                    create-schema: true
                    connect-timeout: 10s
                    relay: {poll-interval: 200ms, max-attempts: 2, backoff: {base: 100ms, max: 200ms}}
                    routes:
                      - types: ["*"]
                        transport:
                          %s
                """.formatted(name, url, password == null ? "" : "    password: " + password + "\n", table, transport);
    }

    private static String log() {
        return "log";
    }

    private static String webhook(int port, String secret, String bearer, String apiKey) {
        return """
                webhook:
                            allow-private-networks: true
                            endpoints:
                              - url: http://127.0.0.1:%d/hook
                                secret: %s
                                headers: {Authorization: "Bearer %s", X-Api-Key: %s}""".formatted(port, secret, bearer, apiKey);
    }

    private Path run(String yaml, String... flags) throws IOException {
        String name = "run" + children.size();
        Path out = dir.resolve(name + ".txt");
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(List.of(flags));
        if (flags.length == 0) {
            args.addAll(List.of("--duration", "5"));
        }
        start(out, name, yaml, args.toArray(String[]::new));
        return out;
    }

    private Process start(Path out, String name, String yaml, String... args) throws IOException {
        Path config = TestSupport.write(dir, name + ".yaml", yaml);
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, "--config");
        all.add(2, config.toString());
        Process p = TestSupport.childJvm(out, all.toArray(String[]::new));
        children.add(p);
        return p;
    }

    /** @return the admin port the server printed once it started; fails with its output when it exits first */
    private static int port(Process server, Path output) throws IOException {
        Pattern listening = Pattern.compile("admin API on http://127\\.0\\.0\\.1:(\\d+)/");
        await().atMost(Duration.ofSeconds(90))
                .until(() -> !server.isAlive()
                        || listening
                                .matcher(Files.readString(output, StandardCharsets.UTF_8))
                                .find());
        String text = Files.readString(output, StandardCharsets.UTF_8);
        Matcher m = listening.matcher(text);
        assertThat(m.find()).as(text).isTrue();
        return Integer.parseInt(m.group(1));
    }
}
