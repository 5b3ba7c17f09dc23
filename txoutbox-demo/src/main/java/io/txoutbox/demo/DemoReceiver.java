package io.txoutbox.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.txoutbox.webhook.WebhookVerificationException;
import io.txoutbox.webhook.WebhookVerifier;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's "shipping service": a webhook receiver on a loopback port that verifies every request's
 * Standard Webhooks signature with {@link WebhookVerifier} (401 when it does not match), then answers:
 *
 * <ul>
 *   <li>{@code 410 Gone} to the first delivery of {@code shipment.requested} for every seventh order (the
 *       event goes dead; revive it and the second delivery is accepted);
 *   <li>{@code 503} with {@code Retry-After: 1} to every eleventh {@code payment.captured} (it retries);
 *   <li>{@code 204} to everything else.
 * </ul>
 */
final class DemoReceiver implements AutoCloseable {
    static final String PATH = "/hooks/shipping";

    private final HttpServer http;
    private final ExecutorService executor;
    private final WebhookVerifier verifier;
    private final Set<String> refusedOnce = ConcurrentHashMap.newKeySet();
    private final Set<String> accepted = Collections.newSetFromMap(Collections.synchronizedMap(new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 200_000;
        }
    }));
    private final AtomicLong acceptedCount = new AtomicLong();
    private final AtomicLong badSignatures = new AtomicLong();
    private final AtomicLong payments = new AtomicLong();

    private DemoReceiver(HttpServer http, ExecutorService executor, WebhookVerifier verifier) {
        this.http = http;
        this.executor = executor;
        this.verifier = verifier;
    }

    static DemoReceiver start(String secret) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "demo-receiver");
            t.setDaemon(true);
            return t;
        });
        DemoReceiver receiver = new DemoReceiver(
                http, executor, WebhookVerifier.builder().secret(secret).build());
        http.createContext(PATH, receiver::handle);
        http.setExecutor(executor);
        http.start();
        return receiver;
    }

    String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + PATH;
    }

    /** @return whether the receiver accepted (2xx) an event id */
    boolean accepted(String eventId) {
        return accepted.contains(eventId);
    }

    long acceptedCount() {
        return acceptedCount.get();
    }

    long badSignatures() {
        return badSignatures.get();
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
            String type = String.valueOf(ex.getRequestHeaders().getFirst("event-type"));
            String aggregate = String.valueOf(ex.getRequestHeaders().getFirst("aggregate-id"));
            if (type.equals("shipment.requested") && orderNumber(aggregate) % 7 == 0 && refusedOnce.add(id)) {
                ex.sendResponseHeaders(410, -1);
                return;
            }
            if (type.equals("payment.captured") && payments.incrementAndGet() % 11 == 0) {
                ex.getResponseHeaders().set("Retry-After", "1");
                ex.sendResponseHeaders(503, -1);
                return;
            }
            accepted.add(id);
            acceptedCount.incrementAndGet();
            ex.sendResponseHeaders(204, -1);
        }
    }

    private static long orderNumber(String aggregateId) {
        try {
            return Long.parseLong(aggregateId.substring(aggregateId.lastIndexOf('-') + 1));
        } catch (RuntimeException e) {
            return 1;
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
