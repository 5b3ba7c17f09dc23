package io.txoutbox.server.http;

import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.cli;
import static io.txoutbox.server.TestSupport.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.server.TestReceiver;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.RelayServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The admin API: bearer token on every route, no state change on GET, revive, errors, no secrets. */
class AdminApiTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_admin");

    static TestReceiver receiver;
    static RelayServer server;
    static Outbox producer;
    static String base;

    @BeforeAll
    static void start() throws IOException {
        receiver = new TestReceiver();
        receiver.refusedTypes.add("invoice.sent");
        server = TestSupport.start(TestSupport.yaml(TABLE, receiver.url(), true, ""));
        base = "http://127.0.0.1:" + server.port();
        producer = Outbox.builder(TestSupport.postgres()).table(TABLE).build();
        // One published event and one dead one, so every listing has something to show.
        append("order.placed", "o-1");
        OutboxEvent dead = append("invoice.sent", "o-1");
        await().atMost(Duration.ofSeconds(20)).until(() -> stats().path("dead").asLong() == 1);
        assertThat(dead).isNotNull();
    }

    @AfterAll
    static void stop() {
        TestSupport.cleanUp(TABLE, receiver, server);
    }

    static OutboxEvent append(String type, String order) {
        return producer.inTransaction(c -> producer.append(
                c,
                OutboxEvent.builder(type)
                        .aggregate("order", order)
                        .jsonPayload("{\"n\":1}")
                        .build()));
    }

    static JsonNode stats() {
        TestSupport.Response r = http("GET", base + "/api/sources/orders/stats", TOKEN, null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    private static final List<String[]> ADMIN_ROUTES = List.of(
            new String[] {"GET", "/api/sources"},
            new String[] {"GET", "/api/sources/orders"},
            new String[] {"GET", "/api/sources/orders/stats"},
            new String[] {"GET", "/api/sources/orders/dead"},
            new String[] {"POST", "/api/sources/orders/revive"},
            new String[] {"DELETE", "/api/sources/orders/dead"},
            new String[] {"POST", "/api/sources/orders/purge"},
            new String[] {"POST", "/api/sources/orders/pause"},
            new String[] {"POST", "/api/sources/orders/resume"},
            new String[] {"GET", "/api/sources/nope/stats"});

    @Test
    void every_admin_route_answers_401_without_a_token_or_with_a_wrong_one() {
        for (String[] route : ADMIN_ROUTES) {
            String body = route[0].equals("GET") ? null : "{\"all\":true}";
            TestSupport.Response none = http(route[0], base + route[1], null, body);
            assertThat(none.status()).as(route[0] + " " + route[1]).isEqualTo(401);
            assertThat(none.json().path("error").asText()).contains("missing bearer token");
            TestSupport.Response wrong = http(route[0], base + route[1], TOKEN + "x", body);
            assertThat(wrong.status()).as(route[0] + " " + route[1]).isEqualTo(401);
            assertThat(wrong.json().path("error").asText()).isEqualTo("wrong token");
            TestSupport.Response empty = http(route[0], base + route[1], "", body);
            assertThat(empty.status()).isEqualTo(401);
        }
        assertThat(stats().path("dead").asLong())
                .as("nothing was revived or deleted")
                .isEqualTo(1);
        assertThat(server.source("orders").status()).isEqualTo("running");
    }

    @Test
    void a_refused_request_whose_body_is_not_read_tells_the_client_to_close_the_connection() throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write(("POST /api/sources/orders/revive HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + "Content-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"all\":true}")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String head =
                    new String(socket.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
            String rest =
                    new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(head).isEqualTo("HTTP/1.1 401");
            assertThat(rest.toLowerCase(java.util.Locale.ROOT)).contains("connection: close");
        }
        assertThat(stats().path("dead").asLong()).as("nothing was revived").isEqualTo(1);
    }

    @Test
    void right_token_works_and_answers_json() {
        TestSupport.Response r = http("GET", base + "/api/sources", TOKEN, null);
        assertThat(r.status()).isEqualTo(200);
        JsonNode s = r.json().path("sources").get(0);
        assertThat(s.path("name").asText()).isEqualTo("orders");
        assertThat(s.path("table").asText()).isEqualTo(TABLE);
        assertThat(s.path("status").asText()).isEqualTo("running");
        JsonNode dead = http("GET", base + "/api/sources/orders/dead?type=invoice.sent", TOKEN, null)
                .json();
        assertThat(dead.path("events")).hasSize(1);
        assertThat(dead.path("events").get(0).path("lastError").asText()).contains("HTTP 410");
        assertThat(dead.path("events").get(0).has("payload")).isFalse();
    }

    @Test
    void get_never_changes_anything() {
        String before = snapshot();
        List<String> gets = new ArrayList<>();
        for (String[] route : ADMIN_ROUTES) {
            gets.add(route[1]);
        }
        gets.addAll(List.of(
                "/api/sources/orders/dead?limit=1",
                "/api/sources/orders/dead?type=invoice.sent",
                "/api/sources/orders/dead/delete",
                "/api/sources/orders/revive?all=true",
                "/api/sources/orders/revive?type=invoice.sent",
                "/",
                "/dashboard.js",
                "/health",
                "/ready",
                "/metrics"));
        for (String path : gets) {
            TestSupport.Response r = http("GET", base + path, TOKEN, null);
            assertThat(r.status()).as("GET " + path).isIn(200, 404, 405);
            if (path.contains("revive")
                    || path.endsWith("pause")
                    || path.endsWith("resume")
                    || path.endsWith("purge")) {
                assertThat(r.status()).as("GET " + path).isEqualTo(405);
            }
        }
        assertThat(snapshot()).isEqualTo(before);
    }

    /** What an operator action could change: counts by state and type, the dead listing, the relay status. */
    private static String snapshot() {
        JsonNode s = stats();
        JsonNode dead = http("GET", base + "/api/sources/orders/dead?limit=1000", TOKEN, null)
                .json();
        return s.path("status").asText() + " pending=" + s.path("pending") + " dead=" + s.path("dead") + " inFlight="
                + s.path("inFlight") + " byType=" + s.path("byType") + " deadIds="
                + dead.path("events").findValuesAsText("id");
    }

    @Test
    void revive_through_the_api_makes_a_dead_event_publish() {
        String id = http("GET", base + "/api/sources/orders/dead?type=invoice.sent", TOKEN, null)
                .json()
                .path("events")
                .get(0)
                .path("id")
                .asText();
        assertThat(receiver.accepted).doesNotContainKey(id);
        receiver.refusedTypes.remove("invoice.sent"); // the receiver is fixed

        TestSupport.Response r = http("POST", base + "/api/sources/orders/revive", TOKEN, "{\"ids\":[\"" + id + "\"]}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().path("revived").asInt()).isEqualTo(1);

        await().atMost(Duration.ofSeconds(20)).until(() -> receiver.accepted.containsKey(id));
        assertThat(stats().path("dead").asLong()).isZero();
        // Put the fixture back for the other tests: one dead invoice.sent.
        receiver.refusedTypes.add("invoice.sent");
        append("invoice.sent", "o-2");
        await().atMost(Duration.ofSeconds(20)).until(() -> stats().path("dead").asLong() == 1);
    }

    @Test
    void pause_and_resume_change_the_status() {
        assertThat(http("POST", base + "/api/sources/orders/pause", TOKEN, "{}")
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("paused");
        assertThat(stats().path("status").asText()).isEqualTo("paused");
        assertThat(http("POST", base + "/api/sources/orders/resume", TOKEN, "{}")
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("running");
    }

    @Test
    void errors_are_json_with_a_message() {
        TestSupport.Response unknown = http("GET", base + "/api/sources/nope/stats", TOKEN, null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("error").asText()).contains("no source named 'nope'");
        TestSupport.Response bad =
                http("POST", base + "/api/sources/orders/revive", TOKEN, "{\"ids\":[\"not-a-uuid\"]}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("error").asText()).contains("not-a-uuid");
        TestSupport.Response both =
                http("POST", base + "/api/sources/orders/revive", TOKEN, "{\"all\":true,\"type\":\"x\"}");
        assertThat(both.status()).isEqualTo(400);
        TestSupport.Response notJson =
                http("POST", base + "/api/sources/orders/purge", TOKEN, "{\"olderThan\": sk_live_4eC39HqLyjWDarjt}");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.json().path("error").asText())
                .as("the position of the error, never the token the client sent")
                .startsWith("the request body is not valid JSON (line 1, column ")
                .doesNotContain("sk_live");
        TestSupport.Response purge = http("POST", base + "/api/sources/orders/purge", TOKEN, "{\"olderThan\":\"7d\"}");
        assertThat(purge.status()).isEqualTo(200);
        assertThat(purge.json().path("purged").asInt()).isZero();
    }

    @Test
    void numbers_and_durations_that_overflow_are_a_400_naming_the_parameter_never_a_500() {
        for (String age : new String[] {"99999999999999999999d", "9223372036854775807d", "PT9999999999999999999H"}) {
            TestSupport.Response r =
                    http("POST", base + "/api/sources/orders/purge", TOKEN, "{\"olderThan\":\"" + age + "\"}");
            assertThat(r.status()).as(age + ": " + r.body()).isEqualTo(400);
            assertThat(r.json().path("error").asText()).startsWith("olderThan: ");
        }
        for (String limit : new String[] {"99999999999", "-1", "1e3"}) {
            TestSupport.Response r = http("GET", base + "/api/sources/orders/dead?limit=" + limit, TOKEN, null);
            assertThat(r.status()).as(limit + ": " + r.body()).isEqualTo(400);
            assertThat(r.json().path("error").asText()).containsIgnoringCase("limit");
        }
    }

    @Test
    void a_malformed_percent_escape_in_the_query_or_the_path_is_a_400_naming_the_parameter_never_a_500()
            throws IOException {
        String[][] cases = {
            {"/api/sources/orders/dead?type=%zz", "query parameter 'type'"},
            {"/api/sources/orders/dead?limit=5&type=order%2", "query parameter 'type'"},
            {"/api/sources/orders/dead?ty%zzpe=order.placed", "a query parameter's name"},
            {"/api/sources/orders/dead?type=%C3", "query parameter 'type' is not UTF-8"},
            {
                "/api/sources/orders/dead?type=order.placed%",
                "query parameter 'type' has a malformed percent-escape at character 13"
            },
            {"/api/sources/or%zzders/stats", null},
            {"/api/sources/orders/st%ats", null},
        };
        for (String[] c : cases) {
            TestSupport.Response r = TestSupport.rawGet(server.port(), c[0], TOKEN);
            assertThat(r.status()).as(c[0] + ": " + r.body()).isIn(400, 404);
            if (c[1] != null) {
                assertThat(r.status()).as(c[0]).isEqualTo(400);
                assertThat(r.json().path("error").asText()).as(c[0]).contains(c[1]);
            }
        }
    }

    @Test
    void no_response_carries_a_secret() {
        StringBuilder all = new StringBuilder();
        for (String path : List.of(
                "/api/sources",
                "/api/sources/orders",
                "/api/sources/orders/stats",
                "/api/sources/orders/dead",
                "/metrics",
                "/ready",
                "/health")) {
            all.append(http("GET", base + path, TOKEN, null).body());
        }
        assertThat(all.toString())
                .doesNotContain("not-a-real-password-xyz")
                .doesNotContain(TOKEN)
                .doesNotContain(TestReceiver.SECRET)
                .doesNotContain("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    }

    @Test
    void operations_endpoints_need_no_token() {
        assertThat(http("GET", base + "/health", null, null)
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("up");
        assertThat(http("GET", base + "/ready", null, null).status()).isEqualTo(200);
        TestSupport.Response metrics = http("GET", base + "/metrics", null, null);
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.body())
                .contains("txoutbox_events_published_events_total")
                .contains("source=\"orders\"");
    }

    @Test
    void cli_client_commands_use_the_api_and_exit_with_codes_scripts_can_use() {
        Map<String, String> env = Map.of("TXOUTBOX_SERVER", base, "TXOUTBOX_ADMIN_TOKEN", TOKEN);
        TestSupport.CliResult statsOut = cli(env, "stats");
        assertThat(statsOut.exitCode()).as(statsOut.err()).isZero();
        assertThat(statsOut.out()).contains("source orders: running").contains("invoice.sent");
        TestSupport.CliResult deadOut = cli(env, "dead", "--type", "invoice.sent");
        assertThat(deadOut.exitCode()).isZero();
        assertThat(deadOut.out()).contains("invoice.sent").contains("HTTP 410");
        TestSupport.CliResult json = cli(env, "stats", "--json");
        assertThat(json.out()).contains("\"relayed\"");

        TestSupport.CliResult wrongToken =
                cli(Map.of("TXOUTBOX_SERVER", base, "TXOUTBOX_ADMIN_TOKEN", "nope"), "stats");
        assertThat(wrongToken.exitCode()).isEqualTo(2);
        assertThat(wrongToken.err()).contains("HTTP 401");
        TestSupport.CliResult unknownSource = cli(env, "stats", "--source", "nope");
        assertThat(unknownSource.exitCode()).isEqualTo(2);
        TestSupport.CliResult down =
                cli(Map.of("TXOUTBOX_SERVER", "http://127.0.0.1:9", "TXOUTBOX_ADMIN_TOKEN", TOKEN), "stats");
        assertThat(down.exitCode()).isEqualTo(1);
        assertThat(down.err()).contains("cannot reach the server");
        TestSupport.CliResult usage = cli(env, "revive");
        assertThat(usage.exitCode()).isEqualTo(2);
        assertThat(cli(env, "purge", "--older-than", "7d").exitCode()).isZero();
    }

    @Test
    void cli_write_commands_print_one_line_or_the_servers_json() throws IOException {
        Map<String, String> env = Map.of("TXOUTBOX_SERVER", base, "TXOUTBOX_ADMIN_TOKEN", TOKEN);
        assertThat(cli(env, "revive", "--type", "no.such.type").out()).isEqualTo("revived 0 dead event(s)\n");
        assertThat(cli(env, "delete-dead", "--type", "no.such.type").out()).isEqualTo("deleted 0 dead event(s)\n");
        assertThat(cli(env, "purge", "--older-than", "7d").out()).isEqualTo("purged 0 published event(s)\n");
        assertThat(TestSupport.JSON
                        .readTree(cli(
                                        env,
                                        "revive",
                                        "--id",
                                        java.util.UUID.randomUUID().toString(),
                                        "--json")
                                .out())
                        .path("revived")
                        .asLong())
                .isZero();

        assertThat(cli(env, "pause").out()).isEqualTo("status: paused\n");
        assertThat(TestSupport.JSON
                        .readTree(cli(env, "resume", "--json").out())
                        .path("status")
                        .asText())
                .isEqualTo("running");
        assertThat(stats().path("dead").asLong())
                .as("nothing matched, nothing changed")
                .isEqualTo(1);
    }
}
