package io.txoutbox.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.txoutbox.server.TestSupport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real headless Chromium driven over the Chrome DevTools Protocol with the JDK's own WebSocket: no
 * driver, no downloaded browser. Fails (never skips) when Chromium is not installed.
 */
final class Chromium implements AutoCloseable {
    static final String INSTALL = "apt-get update && apt-get install -y chromium";
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending;
    private volatile String sessionId;

    private Chromium(
            Process process, Path profile, WebSocket socket, Map<Integer, CompletableFuture<JsonNode>> pending) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
        this.pending = pending;
    }

    static String executable() {
        for (String candidate : List.of(
                System.getenv().getOrDefault("CHROMIUM", ""), "/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (!candidate.isEmpty() && Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        throw new AssertionError("Chromium is not installed (looked for $CHROMIUM, /usr/bin/chromium,"
                + " /usr/bin/chromium-browser). Install it with: " + INSTALL);
    }

    static Chromium launch(int width, int height) throws Exception {
        String exe = executable();
        Path profile = Files.createTempDirectory("txoutbox-chromium");
        Process p = new ProcessBuilder(
                        exe,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--disable-dev-shm-usage",
                        "--hide-scrollbars",
                        "--user-data-dir=" + profile,
                        "--remote-debugging-port=0",
                        "--remote-debugging-address=127.0.0.1",
                        "--window-size=" + width + "," + height,
                        "about:blank")
                .redirectErrorStream(true)
                .start();
        String wsUrl = null;
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        StringBuilder seen = new StringBuilder();
        String line;
        while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                wsUrl = m.group(1);
                break;
            }
        }
        if (wsUrl == null) {
            p.destroyForcibly();
            throw new AssertionError("Chromium did not start its DevTools endpoint; it said:\n" + seen);
        }
        Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) {
                    // keep the pipe empty so Chromium never blocks on its own logging
                }
            } catch (IOException e) {
                // the browser ended
            }
        });
        drain.setDaemon(true);
        drain.start();

        Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
        WebSocket ws = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .buildAsync(URI.create(wsUrl), new Listener(pending))
                .get(10, TimeUnit.SECONDS);
        Chromium c = new Chromium(p, profile, ws, pending);
        JsonNode target = c.send("Target.createTarget", obj().put("url", "about:blank"));
        JsonNode attached = c.send(
                "Target.attachToTarget",
                obj().put("targetId", target.path("targetId").asText()).put("flatten", true));
        c.sessionId = attached.path("sessionId").asText();
        c.send("Page.enable", obj());
        c.send("Runtime.enable", obj());
        c.send(
                "Emulation.setDeviceMetricsOverride",
                obj().put("width", width)
                        .put("height", height)
                        .put("deviceScaleFactor", 1)
                        .put("mobile", false));
        return c;
    }

    /** Collects text frames into messages and completes the waiting call by id. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder buffer = new StringBuilder();
        private final Map<Integer, CompletableFuture<JsonNode>> target;

        Listener(Map<Integer, CompletableFuture<JsonNode>> target) {
            this.target = target;
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            buffer.append(data);
            if (last) {
                String message = buffer.toString();
                buffer.setLength(0);
                try {
                    JsonNode n = TestSupport.JSON.readTree(message);
                    if (n.has("id")) {
                        CompletableFuture<JsonNode> f =
                                target.remove(n.get("id").asInt());
                        if (f != null) {
                            if (n.has("error")) {
                                f.completeExceptionally(
                                        new IllegalStateException(n.get("error").toString()));
                            } else {
                                f.complete(n.path("result"));
                            }
                        }
                    }
                } catch (IOException e) {
                    // not JSON: ignore
                }
            }
            webSocket.request(1);
            return null;
        }
    }

    static ObjectNode obj() {
        return TestSupport.JSON.createObjectNode();
    }

    JsonNode send(String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode msg = obj().put("id", id).put("method", method);
        msg.set("params", params);
        if (sessionId != null) {
            msg.put("sessionId", sessionId);
        }
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        socket.sendText(msg.toString(), true).get(10, TimeUnit.SECONDS);
        return f.get(30, TimeUnit.SECONDS);
    }

    void navigate(String url) throws Exception {
        send("Page.navigate", obj().put("url", url));
    }

    /** @return the value of a JavaScript expression, as JSON */
    JsonNode eval(String expression) throws Exception {
        JsonNode r = send(
                "Runtime.evaluate",
                obj().put("expression", expression).put("returnByValue", true).put("awaitPromise", true));
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException("JavaScript failed: " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    /** A real mouse click at the centre of the first element the selector finds. */
    void click(String selector) throws Exception {
        JsonNode rect =
                eval("(() => { const e = document.querySelector(" + TestSupport.JSON.writeValueAsString(selector)
                        + "); e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                        + " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()");
        for (String type : List.of("mouseMoved", "mousePressed", "mouseReleased")) {
            ObjectNode p = obj().put("type", type)
                    .put("x", rect.path("x").asDouble())
                    .put("y", rect.path("y").asDouble());
            if (!type.equals("mouseMoved")) {
                p.put("button", "left").put("clickCount", 1);
            }
            send("Input.dispatchMouseEvent", p);
        }
    }

    byte[] screenshot() throws Exception {
        JsonNode r = send("Page.captureScreenshot", obj().put("format", "png").put("captureBeyondViewport", false));
        return Base64.getDecoder().decode(r.path("data").asText());
    }

    @Override
    public void close() throws Exception {
        try {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
        } catch (RuntimeException e) {
            // the browser may be gone already
        }
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        try (Stream<Path> files = Files.walk(profile)) {
            List<Path> all =
                    new ArrayList<>(files.sorted(Comparator.reverseOrder()).toList());
            for (Path f : all) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // a temp directory: the OS cleans up what is left
        }
    }
}
