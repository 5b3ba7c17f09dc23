package io.txoutbox.server.http;

import static io.txoutbox.server.TestSupport.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import com.sun.net.httpserver.HttpServer;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import io.txoutbox.server.JsPaths;
import io.txoutbox.server.OpsFixture;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.ClientCommands;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.cli.TxoutboxCli;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The OpenAPI description of the server's HTTP API ({@code ops/openapi/txoutbox-admin.yaml}) against the
 * running server: it is valid OpenAPI 3.1 (swagger-parser), every documented operation is called, every
 * answer's status is documented for it and its body validates against the documented schema (a JSON
 * Schema 2020-12 validator, networknt's, with the OpenAPI 3.1 dialect), and the dashboard and the CLI call
 * only documented operations.
 */
class OpenApiContractTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_ops_openapi");
    private static final String SPEC_FILE = "openapi/txoutbox-admin.yaml";
    private static final String SPEC_URI = "https://txoutbox.io/ops/openapi/txoutbox-admin.yaml";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static OpsFixture relay;
    /** A server whose only source waits for a database that is not there: the 503 answers. */
    static RelayServer waiting;

    static JsonNode spec;
    static OpenAPI parsed;
    static SchemaRegistry schemas;
    /** Every documented operation, as {@code GET /api/sources/{source}}. */
    static Set<String> documented;

    static final Set<String> called = new TreeSet<>();

    @BeforeAll
    static void start() throws Exception {
        String yaml = OpsFixture.kitFile(SPEC_FILE);
        ParseOptions options = new ParseOptions();
        options.setResolve(false);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(yaml, null, options);
        assertThat(result.getMessages()).as("swagger-parser's findings").isEmpty();
        parsed = result.getOpenAPI();
        spec = new YAMLMapper().readTree(yaml);
        String specJson = new ObjectMapper().writeValueAsString(spec);
        schemas =
                SchemaRegistry.withDefaultDialect(Dialects.getOpenApi31(), b -> b.schemas(Map.of(SPEC_URI, specJson)));
        documented = new TreeSet<>();
        parsed.getPaths().forEach((path, item) -> item.readOperationsMap()
                .keySet()
                .forEach(method -> documented.add(method.name() + " " + path)));

        relay = OpsFixture.start(TABLE, TestSupport.PG_USER, true);
        int nothing = TestSupport.freePort();
        waiting = TestSupport.start(TestSupport.HEAD + """
                  - name: late
                    jdbc-url: jdbc:postgresql://127.0.0.1:%d/test
                    user: %s
                    table: %s
                    transport: log
                startup:
                  max-backoff: 1h
                """.formatted(nothing, TestSupport.PG_USER, TABLE));
    }

    @AfterAll
    static void stop() {
        if (waiting != null) {
            waiting.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    @Test
    void the_description_is_openapi_3_1_and_documents_every_route_of_the_server() {
        assertThat(parsed.getOpenapi()).isEqualTo("3.1.0");
        assertThat(documented)
                .contains(
                        "GET /health",
                        "GET /ready",
                        "GET /metrics",
                        "GET /api/sources",
                        "GET /api/sources/{source}",
                        "GET /api/sources/{source}/stats",
                        "GET /api/sources/{source}/dead",
                        "DELETE /api/sources/{source}/dead",
                        "POST /api/sources/{source}/revive",
                        "POST /api/sources/{source}/purge",
                        "POST /api/sources/{source}/pause",
                        "POST /api/sources/{source}/resume");
    }

    @Test
    void every_documented_request_answers_as_documented() throws Exception {
        String base = relay.base;
        String deadId = TestSupport.http("GET", base + "/api/sources/orders/dead", TOKEN, null)
                .json()
                .path("events")
                .get(0)
                .path("id")
                .asText();
        String unknown = UUID.randomUUID().toString();
        String big = "{\"ids\": [\"" + "x".repeat(70 * 1024) + "\"]}";

        check(base, "GET", "/health", null, null, 200);
        check(base, "POST", "/health", null, null, 405);
        check(base, "GET", "/ready", null, null, 200);
        check(base, "GET", "/metrics", null, null, 200);
        for (String file : List.of("/", "/index.html", "/dashboard.js", "/dashboard.css", "/favicon.svg")) {
            check(base, "GET", file, null, null, 200);
        }
        check(base, "GET", "/api/sources", TOKEN, null, 200);
        check(base, "GET", "/api/sources", null, null, 401);
        check(base, "GET", "/api/sources", TOKEN + "x", null, 401);
        check(base, "POST", "/api/sources", TOKEN, "{}", 405);
        check(base, "GET", "/api/sources/orders", TOKEN, null, 200);
        check(base, "GET", "/api/sources/nope", TOKEN, null, 404);
        check(base, "GET", "/api/sources/orders/stats", TOKEN, null, 200);
        check(base, "GET", "/api/sources/orders/dead", TOKEN, null, 200);
        check(base, "GET", "/api/sources/orders/dead?limit=1", TOKEN, null, 200);
        check(base, "GET", "/api/sources/orders/dead?type=invoice.sent&after=" + unknown, TOKEN, null, 200);
        check(base, "GET", "/api/sources/orders/dead?limit=0", TOKEN, null, 400);
        check(base, "GET", "/api/sources/orders/dead?after=nope", TOKEN, null, 400);
        check(base, "POST", "/api/sources/orders/pause", TOKEN, "{}", 200);
        check(base, "POST", "/api/sources/orders/resume", TOKEN, null, 200);
        check(base, "GET", "/api/sources/orders/pause", TOKEN, null, 405);
        check(base, "POST", "/api/sources/orders/revive", TOKEN, "{\"ids\": [\"" + unknown + "\"]}", 200);
        check(base, "POST", "/api/sources/orders/revive", TOKEN, "{\"type\": \"nothing.here\"}", 200);
        check(base, "POST", "/api/sources/orders/revive", TOKEN, "{}", 400);
        check(base, "POST", "/api/sources/orders/revive", TOKEN, "[1]", 400);
        check(base, "POST", "/api/sources/orders/revive", TOKEN, big, 413);
        check(base, "POST", "/api/sources/orders/purge", TOKEN, "{\"olderThan\": \"7d\"}", 200);
        check(base, "POST", "/api/sources/orders/purge", TOKEN, "{\"olderThan\": \"soon\"}", 400);
        check(base, "DELETE", "/api/sources/orders/dead", TOKEN, "{\"ids\": [\"" + deadId + "\"]}", 200);
        check(base, "PUT", "/api/sources/orders/dead", TOKEN, "{}", 405);
        assertThat(relay.stats().path("dead").asLong())
                .as("the dead event was deleted")
                .isZero();

        String late = "http://127.0.0.1:" + waiting.port();
        check(late, "GET", "/ready", null, null, 503);
        check(late, "GET", "/api/sources/late", TOKEN, null, 200);
        check(late, "GET", "/api/sources/late/stats", TOKEN, null, 503);
        check(late, "GET", "/api/sources/late/dead", TOKEN, null, 503);
        check(late, "POST", "/api/sources/late/revive", TOKEN, "{\"all\": true}", 503);
        check(late, "DELETE", "/api/sources/late/dead", TOKEN, "{\"all\": true}", 503);
        check(late, "POST", "/api/sources/late/purge", TOKEN, "{\"olderThan\": \"1d\"}", 503);
        check(late, "POST", "/api/sources/late/pause", TOKEN, null, 503);
        check(late, "POST", "/api/sources/late/resume", TOKEN, null, 503);

        assertThat(called).as("documented operations this test called").containsAll(documented);
    }

    /**
     * Sends one request and checks its answer against the description: the status is documented for the
     * operation, the content type is the documented one, and the body validates against its schema; a
     * JSON request body that the server accepts validates against the documented request body too.
     */
    private static void check(String base, String method, String target, String token, String body, int status)
            throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(base + target)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        // A body over the limit is refused from its Content-Length before a byte is read and the connection
        // closed, so the client, still writing it, may see the reset instead of the 413: try it again (JDK
        // 17's HttpClient hangs on 100-continue answered by a final status, so that is no way out).
        HttpResponse<String> answer = null;
        for (int attempt = 1; answer == null; attempt++) {
            try {
                answer = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException e) {
                if (status != 413 || attempt == 5) {
                    throw e;
                }
            }
        }
        HttpResponse<String> r = answer;
        String what = method + " " + target + " -> " + r.statusCode() + " " + abbreviate(r.body());
        assertThat(r.statusCode()).as(what).isEqualTo(status);

        String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
        String template = template(path);
        assertThat(template).as("a documented path for " + what).isNotNull();
        String pointer = "/paths/" + escape(template) + "/" + method.toLowerCase(Locale.ROOT);
        JsonNode operation = spec.at(pointer);
        if (operation.isMissingNode()) {
            // A method the route does not take: only its 405 must be documented, on another method of it.
            assertThat(status).as(what + ": an undocumented operation").isEqualTo(405);
            JsonNode item = spec.at("/paths/" + escape(template));
            boolean documented405 = false;
            for (JsonNode op : item) {
                documented405 |= op.path("responses").has("405");
            }
            assertThat(documented405).as(what + ": 405 documented on the path").isTrue();
            String documentedMethod = null;
            for (String field : (Iterable<String>) item::fieldNames) {
                if (documentedMethod == null
                        && Set.of("get", "post", "put", "delete", "patch").contains(field)) {
                    documentedMethod = field;
                }
            }
            pointer = "/paths/" + escape(template) + "/" + documentedMethod;
            operation = spec.at(pointer);
        } else {
            called.add(method + " " + template);
        }
        String responsePointer = pointer + "/responses/" + status;
        JsonNode response = spec.at(responsePointer);
        assertThat(response.isMissingNode()).as(what + ": status documented").isFalse();
        if (response.has("$ref")) {
            responsePointer = response.path("$ref").asText().substring(1);
            response = spec.at(responsePointer);
        }
        String type = r.headers().firstValue("Content-Type").orElse("");
        String mediaType = type.split(";")[0].strip();
        assertThat(response.path("content").has(mediaType))
                .as(what + ": content type " + type + " documented " + response.path("content"))
                .isTrue();
        response.path("headers").fields().forEachRemaining(h -> {
            if (h.getValue().path("required").asBoolean()) {
                String value = r.headers().firstValue(h.getKey()).orElse(null);
                assertThat(value).as(what + ": header " + h.getKey()).isNotNull();
                JsonNode constant = h.getValue().path("schema").path("const");
                if (!constant.isMissingNode()) {
                    assertThat(value).as(what + ": header " + h.getKey()).isEqualTo(constant.asText());
                }
            }
        });
        if (mediaType.equals("application/json")) {
            List<Error> errors = validate(responsePointer + "/content/application~1json/schema", r.body());
            assertThat(errors).as(what + ": the answer against its schema").isEmpty();
            if (body != null && status == 200 && operation.has("requestBody")) {
                JsonNode requestBody = operation.path("requestBody");
                String requestPointer = requestBody.has("$ref")
                        ? requestBody.path("$ref").asText().substring(1)
                        : pointer + "/requestBody";
                assertThat(validate(requestPointer + "/content/application~1json/schema", body))
                        .as(what + ": the request against its schema")
                        .isEmpty();
            }
        }
    }

    private static List<Error> validate(String pointer, String json) {
        Schema schema = schemas.getSchema(SchemaLocation.of(SPEC_URI + "#" + pointer));
        return schema.validate(json, InputFormat.JSON);
    }

    /** @return the documented path template that a concrete path is, or {@code null} */
    static String template(String path) {
        if (spec.path("paths").has(path)) {
            return path;
        }
        for (String t : (Iterable<String>) () -> spec.path("paths").fieldNames()) {
            if (path.matches(t.replaceAll("\\{[^}/]+}", "[^/]+"))) {
                return t;
            }
        }
        return null;
    }

    private static String escape(String path) {
        return path.replace("~", "~0").replace("/", "~1");
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    // ---- the CLI and the dashboard use only documented operations ----

    @Test
    void every_cli_client_command_calls_only_documented_operations() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        HttpServer proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        proxy.createContext("/", ex -> {
            try (ex) {
                requests.add(ex.getRequestMethod() + " " + ex.getRequestURI().getRawPath());
                byte[] in;
                try (InputStream body = ex.getRequestBody()) {
                    in = body.readAllBytes();
                }
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(relay.base + ex.getRequestURI()))
                        .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(in));
                for (String h : List.of("Authorization", "Content-Type", "Accept")) {
                    String v = ex.getRequestHeaders().getFirst(h);
                    if (v != null) {
                        b.header(h, v);
                    }
                }
                HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
                r.headers().firstValue("Content-Type").ifPresent(v -> ex.getResponseHeaders()
                        .set("Content-Type", v));
                if (r.body().length == 0) {
                    ex.sendResponseHeaders(r.statusCode(), -1);
                } else {
                    ex.sendResponseHeaders(r.statusCode(), r.body().length);
                    ex.getResponseBody().write(r.body());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        proxy.start();
        try {
            Map<String, String> env = Map.of(
                    "TXOUTBOX_ADMIN_TOKEN",
                    TOKEN,
                    "TXOUTBOX_SERVER",
                    "http://127.0.0.1:" + proxy.getAddress().getPort());
            String unknown = UUID.randomUUID().toString();
            Map<String, List<String>> runs = new LinkedHashMap<>();
            runs.put("stats", List.of("stats"));
            runs.put("dead", List.of("dead", "--type", "invoice.sent", "--limit", "5", "--after", unknown));
            runs.put("revive", List.of("revive", "--id", unknown));
            runs.put("delete-dead", List.of("delete-dead", "--type", "nothing.here"));
            runs.put("purge", List.of("purge", "--older-than", "7d"));
            runs.put("pause", List.of("pause"));
            runs.put("resume", List.of("resume"));
            assertThat(runs.keySet())
                    .as("every client command of the CLI is run here")
                    .containsExactlyInAnyOrderElementsOf(clientCommands());
            Set<String> undocumented = new LinkedHashSet<>();
            for (Map.Entry<String, List<String>> run : runs.entrySet()) {
                for (List<String> args : List.of(
                        run.getValue(), with(run.getValue(), "--source", "orders"), with(run.getValue(), "--json"))) {
                    requests.clear();
                    TestSupport.CliResult r = TestSupport.cli(env, args.toArray(String[]::new));
                    assertThat(r.exitCode()).as(args + ": " + r.err()).isZero();
                    assertThat(requests).as(args + " called the server").isNotEmpty();
                    for (String request : requests) {
                        String[] parts = request.split(" ", 2);
                        String t = template(parts[1]);
                        if (t == null || !documented.contains(parts[0] + " " + t)) {
                            undocumented.add(args.get(0) + ": " + request);
                        }
                    }
                }
            }
            assertThat(undocumented).as("CLI calls of undocumented operations").isEmpty();
        } finally {
            proxy.stop(0);
        }
    }

    private static List<String> with(List<String> args, String... more) {
        List<String> out = new ArrayList<>(args);
        out.addAll(List.of(more));
        return out;
    }

    /** @return the CLI's subcommands that call the admin API */
    private static Set<String> clientCommands() {
        Set<String> names = new TreeSet<>();
        CommandLine cli = new CommandLine(TxoutboxCli.class);
        cli.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommand() instanceof ClientCommands.Connection) {
                names.add(name);
            }
        });
        assertThat(names).isNotEmpty();
        return names;
    }

    @Test
    void the_dashboard_calls_only_documented_operations() throws Exception {
        String js = resource("dashboard/dashboard.js");
        // One fetch, inside api(), which prefixes /api: every call of the API goes through api(METHOD, PATH).
        assertThat(js.split("fetch\\(", -1)).hasSize(2);
        assertThat(js).contains("fetch('/api' + path");
        Matcher call = Pattern.compile("api\\('([A-Z]+)',\\s*").matcher(js);
        Set<String> calls = new TreeSet<>();
        while (call.find()) {
            String expr = argument(js, call.end());
            for (String path : JsPaths.evaluate(js, call.start(), expr)) {
                String plain = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
                calls.add(call.group(1) + " /api" + plain);
            }
        }
        // The page's own files and links.
        Matcher link = Pattern.compile("(?:src|href)=\"([^\"#]+)\"").matcher(resource("dashboard/index.html"));
        while (link.find()) {
            String target = link.group(1);
            calls.add("GET " + (target.startsWith("/") ? target : "/" + target));
        }
        assertThat(calls).as("the calls read from the dashboard").hasSizeGreaterThanOrEqualTo(10);
        List<String> undocumented = new ArrayList<>();
        for (String c : calls) {
            String[] parts = c.split(" ", 2);
            String t = template(parts[1].replace(JsPaths.PARAMETER, "x"));
            if (t == null || !documented.contains(parts[0] + " " + t)) {
                undocumented.add(c);
            }
        }
        assertThat(undocumented)
                .as("dashboard calls of undocumented operations, of " + calls)
                .isEmpty();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = AdminServer.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** @return the JavaScript expression from {@code start} to the next top-level comma or parenthesis */
    private static String argument(String js, int start) {
        int depth = 0;
        char quote = 0;
        for (int i = start; i < js.length(); i++) {
            char c = js.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && depth > 0) {
                depth--;
            } else if (depth == 0 && (c == ',' || c == ')')) {
                return js.substring(start, i).strip();
            }
        }
        throw new IllegalArgumentException("no end of the argument at " + start);
    }
}
