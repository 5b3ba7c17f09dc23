package io.txoutbox.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxException;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.source.RelaySource;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
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
public final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private HttpFront http;
    private final byte[] tokenDigest;
    private final Supplier<List<RelaySource>> sourceList;
    private final PrometheusMeterRegistry registry;
    private final boolean dashboard;
    private final int maxTypes;

    private AdminServer(
            byte[] tokenDigest,
            Supplier<List<RelaySource>> sources,
            PrometheusMeterRegistry registry,
            boolean dashboard,
            int maxTypes) {
        this.tokenDigest = tokenDigest;
        this.sourceList = sources;
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
    public static AdminServer start(
            ServerConfig.Admin config, Supplier<List<RelaySource>> sources, PrometheusMeterRegistry registry) {
        AdminServer admin = new AdminServer(
                sha256(config.token().value()),
                sources,
                registry,
                config.dashboard(),
                config.limits().maxEventTypes());
        try {
            admin.http = HttpFront.start(config, admin::handle);
        } catch (IOException e) {
            throw HttpFront.bindError(config, e);
        }
        return admin;
    }

    /**
     * The same routes on an in-process connector without a socket ({@link HttpFront#local}), for the fuzz
     * target of request parsing.
     */
    static AdminServer local(
            ServerConfig.Admin config, Supplier<List<RelaySource>> sources, PrometheusMeterRegistry registry)
            throws IOException {
        AdminServer admin = new AdminServer(
                sha256(config.token().value()),
                sources,
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

    /** @return the connections open now */
    public int connections() {
        return http.connections();
    }

    public int port() {
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
                for (RelaySource s : sourceList.get()) {
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
                parts.add(AdminRequests.decode(p, "the path"));
            }
        }
        if (parts.size() == 1 && parts.get(0).equals("sources")) {
            onlyGet(method);
            ArrayNode list = JSON.createArrayNode();
            for (RelaySource s : sourceList.get()) {
                list.add(AdminViews.describe(s));
            }
            ObjectNode body = JSON.createObjectNode();
            body.set("sources", list);
            json(ex, 200, body);
            return;
        }
        if (parts.size() < 2 || !parts.get(0).equals("sources")) {
            throw new HttpError(404, "no such route: /api" + path);
        }
        RelaySource s = sourceList.get().stream()
                .filter(candidate -> candidate.name().equals(parts.get(1)))
                .findFirst()
                .orElse(null);
        if (s == null) {
            throw new HttpError(
                    404,
                    "no source named '" + parts.get(1) + "'; sources: "
                            + sourceList.get().stream().map(RelaySource::name).toList());
        }
        String action = parts.size() == 2 ? "" : String.join("/", parts.subList(2, parts.size()));
        if (!action.isEmpty() && s.waitingFor() != null) {
            throw new HttpError(503, "source '" + s.name() + "' waits for its database: " + s.waitingFor());
        }
        Map<String, String> query = AdminRequests.query(ex);
        switch (action) {
            case "" -> {
                onlyGet(method);
                json(ex, 200, AdminViews.describe(s));
            }
            case "stats" -> {
                onlyGet(method);
                json(ex, 200, AdminViews.stats(s, maxTypes));
            }
            case "dead" -> {
                if (method.equals("GET")) {
                    json(ex, 200, AdminViews.dead(s, query));
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
                JsonNode body = AdminRequests.body(ex);
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

    /**
     * Applies an action to the dead events the request's body selects, logs it and answers the count.
     *
     * @param done what was done, as the answer's field names it ({@code revived})
     */
    private void onDeadEvents(Exchange ex, RelaySource s, String done, ToIntFunction<DeadSelector> action)
            throws IOException {
        DeadSelector selector = AdminViews.selector(AdminRequests.body(ex));
        int n = action.applyAsInt(selector);
        log.info(
                "txoutbox-server: admin API {} {} dead event(s) of source '{}' ({})",
                done,
                n,
                s.name(),
                AdminViews.describe(selector));
        json(ex, 200, JSON.createObjectNode().put(done, n));
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
