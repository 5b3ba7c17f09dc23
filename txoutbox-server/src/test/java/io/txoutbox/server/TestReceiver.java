package io.txoutbox.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.txoutbox.webhook.WebhookVerificationException;
import io.txoutbox.webhook.WebhookVerifier;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook receiver for the tests: verifies each request's signature with the real {@link
 * WebhookVerifier}, records what it accepted, and answers 410 to the event types it is told to refuse.
 */
public final class TestReceiver implements AutoCloseable {
    public static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    private final HttpServer http;
    private final WebhookVerifier verifier =
            WebhookVerifier.builder().secret(SECRET).build();
    public final Map<String, byte[]> accepted = new ConcurrentHashMap<>();
    public final List<String> started = new CopyOnWriteArrayList<>();
    public final Set<String> refusedTypes = ConcurrentHashMap.newKeySet();
    final AtomicInteger badSignatures = new AtomicInteger();
    public volatile Duration delay = Duration.ZERO;

    public TestReceiver() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.createContext("/hook", this::handle);
        http.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-receiver");
            t.setDaemon(true);
            return t;
        }));
        http.start();
    }

    public String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/hook";
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            try {
                verifier.verify(ex.getRequestHeaders(), body);
            } catch (WebhookVerificationException e) {
                badSignatures.incrementAndGet();
                ex.sendResponseHeaders(401, -1);
                return;
            }
            String id = ex.getRequestHeaders().getFirst("webhook-id");
            started.add(id);
            if (!delay.isZero()) {
                try {
                    Thread.sleep(delay.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (refusedTypes.contains(ex.getRequestHeaders().getFirst("event-type"))) {
                ex.sendResponseHeaders(410, -1);
                return;
            }
            accepted.put(id, body);
            ex.sendResponseHeaders(204, -1);
        }
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
