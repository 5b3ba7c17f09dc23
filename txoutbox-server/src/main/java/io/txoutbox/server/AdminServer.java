package io.txoutbox.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxException;
import io.txoutbox.Redaction;
import io.txoutbox.admin.AdminJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's HTTP side, on Jetty behind {@link HttpFront}'s bounds: the admin API under {@code
 * /api/} (bearer token on every route), the dashboard's static files, and {@code /health}, {@code
 * /ready} and {@code /metrics} for the platform (no token: they change nothing and reveal no event).
 *
 * <p>GET never changes state; writes are POST or DELETE. Errors are {@code {"error": "..."}}. No
 * response ever carries a password, a token or a signing secret.
 */
final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 64 * 1024;
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private HttpFront http;
    private final byte[] tokenDigest;
    private final RelayServer server;
    private final PrometheusMeterRegistry registry;
    private final boolean dashboard;
    private final int maxTypes;

    private AdminServer(
            byte[] tokenDigest, RelayServer server, PrometheusMeterRegistry registry, boolean dashboard, int maxTypes) {
        this.tokenDigest = tokenDigest;
        this.server = server;
        this.registry = registry;
        this.dashboard = dashboard;
        this.maxTypes = maxTypes;
    }

    /**
     * Binds and serves, with the request, idle and connection bounds of {@code config.limits()}.
     *
     * @throws ConfigException naming {@code admin.port} when the port is taken, {@code admin.host} when the
     *     address is not this machine's, with the operating system's words
     */
    static AdminServer start(ServerConfig.Admin config, RelayServer server, PrometheusMeterRegistry registry) {
        AdminServer admin = new AdminServer(
                sha256(config.token().value()),
                server,
                registry,
                config.dashboard(),
                config.limits().maxEventTypes());
        try {
            admin.http = HttpFront.start(config, admin::handle);
        } catch (IOException e) {
            throw bindError(config, e);
        }
        return admin;
    }

    /**
     * The same routes on an in-process connector without a socket ({@link HttpFront#local}), for the fuzz
     * target of request parsing.
     */
    static AdminServer local(ServerConfig.Admin config, RelayServer server, PrometheusMeterRegistry registry)
            throws IOException {
        AdminServer admin = new AdminServer(
                sha256(config.token().value()),
                server,
                registry,
                config.dashboard(),
                config.limits().maxEventTypes());
        admin.http = HttpFront.local(config, admin::handle);
        return admin;
    }

    /** @return what a {@link #local} server answered to raw request bytes ({@link HttpFront#exchange}) */
    String exchange(byte[] request, Duration wait) throws Exception {
        return http.exchange(request, wait);
    }

    /**
     * Names what really failed: a port in use is {@code admin.port}; an address that is not one of this
     * machine's (or that does not resolve) is {@code admin.host}; the operating system's own words follow.
     */
    static ConfigException bindError(ServerConfig.Admin config, IOException e) {
        String where = config.host() + ":" + config.port();
        InetAddress address;
        try {
            address = InetAddress.getByName(config.host());
        } catch (UnknownHostException unknown) {
            return new ConfigException(
                    "admin.host", "cannot listen on " + where + ": the host name does not resolve", e);
        }
        boolean local;
        try {
            local = address.isAnyLocalAddress()
                    || address.isLoopbackAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException unknown) {
            local = true;
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String reason = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (!local) {
            return new ConfigException(
                    "admin.host",
                    "cannot listen on " + where + ": " + reason + " (" + address.getHostAddress()
                            + " is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses)",
                    e);
        }
        if (root instanceof BindException) {
            return new ConfigException(
                    "admin.port",
                    "cannot listen on " + where + ": " + reason + " (is the port already in use? stop the program"
                            + " using it, or choose another port with --port or admin.port)",
                    e);
        }
        return new ConfigException("admin.host", "cannot listen on " + where + ": " + reason, e);
    }

    /** @return the connections open now */
    int connections() {
        return http.connections();
    }

    int port() {
        return http.port();
    }

    @Override
    public void close() {
        http.close();
    }

    /** An HTTP error with its status and message, answered as {@code {"error": ...}}. */
    static final class HttpError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;

        HttpError(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private void handle(Exchange ex) {
        String path = ex.rawPath();
        String method = ex.method();
        try {
            try {
                if (path.startsWith("/api/") || path.equals("/api")) {
                    requireToken(ex);
                    api(ex, method, path.substring("/api".length()));
                } else {
                    operations(ex, method, path);
                }
            } catch (HttpError e) {
                error(ex, e.status, e.getMessage());
            } catch (OutboxException e) {
                error(ex, 400, e.getMessage());
            } catch (RuntimeException e) {
                log.warn("txoutbox-server: {} {} failed", method, path, e);
                // The class only: the message is for the (redacted) log, not for whoever sent the request.
                error(ex, 500, "internal error: " + e.getClass().getSimpleName() + " (see the server's log)");
            }
        } catch (IOException e) {
            // The client went away, or was too slow and its connection was closed: nobody to answer.
            if (!ex.sent()) {
                ex.fail(e);
            }
        }
    }

    // ---- platform routes, no token ----

    private void operations(Exchange ex, String method, String path) throws IOException {
        Map<String, String> staticFiles = Map.of(
                "/", "index.html",
                "/index.html", "index.html",
                "/dashboard.js", "dashboard.js",
                "/dashboard.css", "dashboard.css",
                "/favicon.svg", "favicon.svg");
        switch (path) {
            case "/health" -> {
                onlyGet(method);
                json(ex, 200, JSON.createObjectNode().put("status", "up"));
            }
            case "/ready" -> {
                onlyGet(method);
                ObjectNode body = JSON.createObjectNode();
                ObjectNode sources = body.putObject("sources");
                ObjectNode reasons = JSON.createObjectNode();
                boolean ready = true;
                for (RelaySource s : server.sources()) {
                    boolean r = s.ready();
                    ready &= r;
                    sources.put(s.name(), r ? "ready" : "not ready");
                    String waiting = s.waitingFor();
                    String because = s.notReadyBecause();
                    if (waiting != null) {
                        reasons.put(s.name(), "waiting for the database: " + waiting);
                    } else if (because != null) {
                        reasons.put(s.name(), because);
                    }
                }
                body.put("status", ready ? "ready" : "not ready");
                if (!reasons.isEmpty()) {
                    body.set("reasons", reasons);
                }
                json(ex, ready ? 200 : 503, body);
            }
            case "/metrics" -> {
                onlyGet(method);
                send(
                        ex,
                        200,
                        "text/plain; version=0.0.4; charset=utf-8",
                        registry.scrape().getBytes(StandardCharsets.UTF_8));
            }
            default -> {
                String file = staticFiles.get(path);
                if (file == null || !dashboard) {
                    throw new HttpError(404, "no such route: " + path);
                }
                onlyGet(method);
                serveResource(ex, file);
            }
        }
    }

    private void serveResource(Exchange ex, String file) throws IOException {
        byte[] bytes;
        try (InputStream in = AdminServer.class.getResourceAsStream("dashboard/" + file)) {
            if (in == null) {
                throw new HttpError(404, "no such file: " + file);
            }
            bytes = in.readAllBytes();
        }
        String type = file.endsWith(".html")
                ? "text/html; charset=utf-8"
                : file.endsWith(".js")
                        ? "text/javascript; charset=utf-8"
                        : file.endsWith(".css") ? "text/css; charset=utf-8" : "image/svg+xml";
        ex.setHeader("Content-Security-Policy", CSP);
        send(ex, 200, type, bytes);
    }

    // ---- admin API, token required ----

    private void requireToken(Exchange ex) {
        String header = ex.header("Authorization");
        String given = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                ? header.substring(7).strip()
                : "";
        // Digests of equal length, compared in constant time: neither the content nor the length of the
        // token leaks through timing.
        if (header == null || !MessageDigest.isEqual(sha256(given), tokenDigest)) {
            ex.setHeader("WWW-Authenticate", "Bearer realm=\"txoutbox\"");
            throw new HttpError(
                    401, header == null ? "missing bearer token (Authorization: Bearer <token>)" : "wrong token");
        }
    }

    private void api(Exchange ex, String method, String path) throws IOException {
        List<String> parts = new ArrayList<>();
        for (String p : path.split("/")) {
            if (!p.isEmpty()) {
                parts.add(decode(p, "the path"));
            }
        }
        if (parts.size() == 1 && parts.get(0).equals("sources")) {
            onlyGet(method);
            ArrayNode list = JSON.createArrayNode();
            for (RelaySource s : server.sources()) {
                list.add(describe(s));
            }
            ObjectNode body = JSON.createObjectNode();
            body.set("sources", list);
            json(ex, 200, body);
            return;
        }
        if (parts.size() < 2 || !parts.get(0).equals("sources")) {
            throw new HttpError(404, "no such route: /api" + path);
        }
        RelaySource s = server.source(parts.get(1));
        if (s == null) {
            throw new HttpError(
                    404,
                    "no source named '" + parts.get(1) + "'; sources: "
                            + server.sources().stream().map(RelaySource::name).toList());
        }
        String action = parts.size() == 2 ? "" : String.join("/", parts.subList(2, parts.size()));
        if (!action.isEmpty() && s.waitingFor() != null) {
            throw new HttpError(503, "source '" + s.name() + "' waits for its database: " + s.waitingFor());
        }
        Map<String, String> query = query(ex);
        switch (action) {
            case "" -> {
                onlyGet(method);
                json(ex, 200, describe(s));
            }
            case "stats" -> {
                onlyGet(method);
                json(ex, 200, stats(s));
            }
            case "dead" -> {
                if (method.equals("GET")) {
                    json(ex, 200, dead(s, query));
                } else if (method.equals("DELETE")) {
                    onDeadEvents(ex, s, "deleted", selector -> s.admin().deleteDead(selector));
                } else {
                    throw notAllowed("GET, DELETE");
                }
            }
            case "revive" -> {
                onlyPost(method);
                onDeadEvents(ex, s, "revived", selector -> s.admin().revive(selector));
            }
            case "purge" -> {
                onlyPost(method);
                JsonNode body = body(ex);
                JsonNode age = body.get("olderThan");
                if (age == null || !age.isTextual()) {
                    throw new HttpError(400, "give olderThan, a duration such as \"7d\", \"12h\" or \"PT30M\"");
                }
                Duration d;
                try {
                    d = ConfigNode.parseDuration(age.asText());
                } catch (IllegalArgumentException e) {
                    throw new HttpError(400, "olderThan: " + e.getMessage());
                }
                if (d.isNegative()) {
                    throw new HttpError(400, "olderThan '" + age.asText() + "' is negative; give an age such as 7d");
                }
                int n = s.admin().purgePublished(d);
                log.info(
                        "txoutbox-server: admin API purged {} published event(s) of source '{}' older than {}",
                        n,
                        s.name(),
                        d);
                json(ex, 200, JSON.createObjectNode().put("purged", n));
            }
            case "pause" -> {
                onlyPost(method);
                s.pause();
                log.info("txoutbox-server: admin API paused source '{}'", s.name());
                json(ex, 200, JSON.createObjectNode().put("status", s.status()));
            }
            case "resume" -> {
                onlyPost(method);
                s.resume();
                log.info("txoutbox-server: admin API resumed source '{}'", s.name());
                json(ex, 200, JSON.createObjectNode().put("status", s.status()));
            }
            default -> throw new HttpError(404, "no such route: /api" + path);
        }
    }

    private static ObjectNode describe(RelaySource s) {
        ServerConfig.Source c = s.config();
        ObjectNode n = JSON.createObjectNode();
        n.put("name", s.name());
        n.put("status", s.status());
        n.put("table", s.outbox() == null ? c.table() : s.outbox().table());
        n.put("dialect", s.dialect() == null ? c.dialect() : s.dialect().name());
        n.put("jdbcUrl", Redaction.redact(c.jdbcUrl()));
        n.put("user", c.user());
        n.put("ordered", c.ordered() == null ? null : c.ordered().name().toLowerCase());
        n.put("relays", s.relays().size());
        n.put("batchSize", c.relay().settings().batchSize());
        ArrayNode routes = n.putArray("routes");
        s.transports().forEach(routes::add);
        return n;
    }

    /**
     * The table's figures as the actuator endpoint answers them too ({@link AdminJson.Stats}), with what
     * only the server knows around them: the source, its relays since start, its routes and its recent
     * throughput.
     */
    private ObjectNode stats(RelaySource s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("source", s.name());
        n.put("status", s.status());
        n.setAll((ObjectNode)
                JSON.valueToTree(AdminJson.stats(s.outbox().table(), s.admin().stats(), maxTypes)));
        Activity a = s.activity();
        Activity.Counts t = a.totals();
        ObjectNode relayed = n.putObject("relayed");
        relayed.put("published", t.published()).put("retried", t.retried()).put("dead", t.dead());
        relayed.put("errors", a.errors());
        ObjectNode types = relayed.putObject("byType");
        a.byType().forEach((type, c) -> types.putObject(type)
                .put("published", c.published())
                .put("retried", c.retried())
                .put("dead", c.dead()));
        n.set("routes", routes(s));
        ArrayNode history = n.putArray("throughput");
        for (Activity.Point p : a.history()) {
            history.addObject()
                    .put("t", p.epochMillis())
                    .put("published", p.published())
                    .put("retried", p.retried())
                    .put("dead", p.dead());
        }
        return n;
    }

    /** Per route: what its broker did since start, whether it is failing, and its recent latency. */
    private static ArrayNode routes(RelaySource s) {
        ArrayNode list = JSON.createArrayNode();
        for (RouteStats r : s.routes()) {
            RouteStats.Snapshot x = r.snapshot();
            ObjectNode o = list.addObject();
            o.put("name", x.name()).put("transport", x.transport()).put("target", x.target());
            x.types().forEach(o.putArray("types")::add);
            o.put("published", x.published())
                    .put("retried", x.retried())
                    .put("dead", x.dead())
                    .put("failures", x.failures())
                    .put("heldBack", x.heldBack())
                    .put("failing", x.failing())
                    .put("lastError", x.lastError());
            o.putObject("recent")
                    .put("seconds", RouteStats.WINDOW)
                    .put("publishedPerSecond", x.recentPerSecond())
                    .put("meanLatencyMillis", x.recentMeanLatencyMillis())
                    .put("maxLatencyMillis", x.recentMaxLatencyMillis());
        }
        return list;
    }

    /** One page of dead events, as the actuator endpoint answers it too ({@link AdminJson.DeadPage}). */
    private static JsonNode dead(RelaySource s, Map<String, String> query) {
        DeadQuery q = AdminJson.deadQuery(query.get("type"), query.get("limit"), query.get("after"));
        return JSON.valueToTree(AdminJson.deadPage(s.admin().dead(q), q));
    }

    /**
     * Applies an action to the dead events the request's body selects, logs it and answers the count.
     *
     * @param done what was done, as the answer's field names it ({@code revived})
     */
    private void onDeadEvents(Exchange ex, RelaySource s, String done, ToIntFunction<DeadSelector> action)
            throws IOException {
        DeadSelector selector = selector(body(ex));
        int n = action.applyAsInt(selector);
        log.info(
                "txoutbox-server: admin API {} {} dead event(s) of source '{}' ({})",
                done,
                n,
                s.name(),
                describe(selector));
        json(ex, 200, JSON.createObjectNode().put(done, n));
    }

    private static DeadSelector selector(JsonNode body) {
        JsonNode ids = body.get("ids");
        JsonNode type = body.get("type");
        boolean all = body.path("all").asBoolean(false);
        int given = (ids != null ? 1 : 0) + (type != null ? 1 : 0) + (all ? 1 : 0);
        if (given != 1) {
            throw new HttpError(400, "give exactly one of {\"ids\": [...]}, {\"type\": \"...\"} or {\"all\": true}");
        }
        if (ids != null) {
            if (!ids.isArray() || ids.isEmpty() || ids.size() > DeadQuery.MAX_LIMIT) {
                throw new HttpError(400, "ids must be a list of 1 to " + DeadQuery.MAX_LIMIT + " event ids");
            }
            Set<UUID> set = new LinkedHashSet<>();
            for (JsonNode id : ids) {
                set.add(uuid("ids", id.asText()));
            }
            return DeadSelector.ids(set);
        }
        if (type != null) {
            if (!type.isTextual() || type.asText().isBlank()) {
                throw new HttpError(400, "type must be a non-blank event type");
            }
            return DeadSelector.type(type.asText());
        }
        return DeadSelector.all();
    }

    private static String describe(DeadSelector s) {
        if (s.ids() != null) {
            return s.ids().size() + " id(s)";
        }
        return s.eventType() != null ? "type " + s.eventType() : "all";
    }

    private static UUID uuid(String field, String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new HttpError(400, field + ": '" + text + "' is not an event id (a UUID)");
        }
    }

    private static JsonNode body(Exchange ex) throws IOException {
        if (ex.declaredLength() > MAX_BODY) {
            // Refused before a byte is read: a huge body cannot hold a worker while it trickles in.
            throw new HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
        }
        byte[] bytes = ex.body(MAX_BODY);
        if (bytes.length > MAX_BODY) {
            throw new HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
        }
        if (bytes.length == 0) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode n = JSON.readTree(bytes);
            if (n == null || !n.isObject()) {
                throw new HttpError(400, "the request body must be a JSON object");
            }
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // Jackson's message quotes the offending token, which may be anything the client sent: the
            // position only.
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
            throw new HttpError(
                    400,
                    "the request body is not valid JSON"
                            + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        }
    }

    private static Map<String, String> query(Exchange ex) {
        Map<String, String> out = new HashMap<>();
        String raw = ex.rawQuery();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq), "a query parameter's name");
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1), "query parameter '" + k + "'");
            out.put(k, v);
        }
        return out;
    }

    /**
     * Decodes percent-escapes (and {@code +} as a space, as forms send it) into UTF-8 text. A malformed
     * escape ({@code %zz}, a {@code %} at the end) or bytes that are not UTF-8 are the client's mistake: a
     * 400 naming where they are, never an internal error, and never text silently changed to U+FFFD.
     *
     * @param where what the text is, for the message: {@code query parameter 'type'}
     */
    static String decode(String text, String where) {
        if (text.indexOf('%') < 0 && text.indexOf('+') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                int hi = i + 1 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                int lo = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw new HttpError(
                            400,
                            where + " has a malformed percent-escape at character " + (i + 1)
                                    + ": % must be followed by two hexadecimal digits");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else if (c == '+') {
                bytes.write(' ');
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < text.length() ? i + 2 : i + 1;
                bytes.writeBytes(text.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new HttpError(400, where + " is not UTF-8 once its percent-escapes are decoded");
        }
    }

    private static void onlyGet(String method) {
        if (!method.equals("GET")) {
            throw notAllowed("GET");
        }
    }

    private static void onlyPost(String method) {
        if (!method.equals("POST")) {
            throw notAllowed("POST");
        }
    }

    private static HttpError notAllowed(String allowed) {
        return new HttpError(405, "method not allowed here; use " + allowed);
    }

    private static void json(Exchange ex, int status, JsonNode body) throws IOException {
        send(ex, status, "application/json", JSON.writeValueAsBytes(RedactedOutput.json(body)));
    }

    private static void error(Exchange ex, int status, String message) throws IOException {
        json(ex, status, JSON.createObjectNode().put("error", message));
    }

    private static void send(Exchange ex, int status, String type, byte[] body) throws IOException {
        ex.setHeader("Content-Type", type);
        ex.setHeader("Cache-Control", "no-store");
        ex.setHeader("X-Content-Type-Options", "nosniff");
        ex.setHeader("Referrer-Policy", "no-referrer");
        ex.setHeader("X-Frame-Options", "DENY");
        ex.send(status, type, body);
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
