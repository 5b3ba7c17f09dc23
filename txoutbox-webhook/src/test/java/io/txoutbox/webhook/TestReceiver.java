package io.txoutbox.webhook;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A webhook receiver on 127.0.0.1 for tests: verifies every request with a {@link WebhookVerifier}, records
 * it, and answers what the test's rule says (by default 204 when verified, 401 when not).
 */
final class TestReceiver implements AutoCloseable, BeforeEachCallback, AfterAllCallback {

    /** One request as it arrived. Header names are lower case; with several values, the first. */
    record Request(String path, Map<String, String> headers, byte[] body, WebhookVerificationException problem) {
        String eventId() {
            return headers.get(WebhookPublisher.WEBHOOK_ID);
        }

        boolean verified() {
            return problem == null;
        }
    }

    /** What to answer. */
    record Response(int status, Map<String, String> headers) {
        static Response of(int status) {
            return new Response(status, Map.of());
        }

        Response with(String name, String value) {
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put(name, value);
            return new Response(status, h);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final WebhookVerifier verifier;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Request> requests = new ArrayList<>();
    private final List<Request> accepted = new ArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private volatile Function<Request, Response> rule = TestReceiver::verifiedOr401;

    /**
     * A receiver for a whole test class, as {@code @RegisterExtension static final TestReceiver}: started
     * now, reset before each test, closed after the last.
     */
    static TestReceiver started(WebhookVerifier verifier) {
        try {
            return new TestReceiver(verifier);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        reset();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    TestReceiver(WebhookVerifier verifier) throws IOException {
        this.verifier = verifier;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    static Response verifiedOr401(Request request) {
        return Response.of(request.verified() ? 204 : 401);
    }

    /** @param rule decides the answer; it runs after the request was verified and recorded */
    void respond(Function<Request, Response> rule) {
        this.rule = rule;
    }

    int port() {
        return server.getAddress().getPort();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** @return every request, in arrival order */
    List<Request> requests() {
        lock.lock();
        try {
            return List.copyOf(requests);
        } finally {
            lock.unlock();
        }
    }

    /** @return the requests answered 2xx, in arrival order */
    List<Request> accepted() {
        lock.lock();
        try {
            return List.copyOf(accepted);
        } finally {
            lock.unlock();
        }
    }

    List<Request> requestsTo(String path) {
        return requests().stream().filter(r -> r.path().equals(path)).toList();
    }

    List<Request> acceptedAt(String path) {
        return accepted().stream().filter(r -> r.path().equals(path)).toList();
    }

    /** @return the most requests that were being handled at once */
    int maxInFlight() {
        return maxInFlight.get();
    }

    void reset() {
        lock.lock();
        try {
            requests.clear();
            accepted.clear();
        } finally {
            lock.unlock();
        }
        maxInFlight.set(0);
        rule = TestReceiver::verifiedOr401;
    }

    private void handle(HttpExchange exchange) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        boolean counted = true;
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Map<String, String> headers = new LinkedHashMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!values.isEmpty()) {
                    headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
                }
            });
            WebhookVerificationException problem = null;
            try {
                verifier.verify(exchange.getRequestHeaders(), body);
            } catch (WebhookVerificationException e) {
                problem = e;
            }
            Request request = new Request(exchange.getRequestURI().getPath(), Map.copyOf(headers), body, problem);
            lock.lock();
            try {
                requests.add(request);
            } finally {
                lock.unlock();
            }
            Response response = rule.apply(request);
            if (response.status() >= 200 && response.status() < 300) {
                lock.lock();
                try {
                    accepted.add(request);
                } finally {
                    lock.unlock();
                }
            }
            response.headers().forEach((n, v) -> exchange.getResponseHeaders().add(n, v));
            // The request stops counting before its answer leaves: once the client has the answer it may
            // send its next request, which must not find this one still counted.
            inFlight.decrementAndGet();
            counted = false;
            exchange.sendResponseHeaders(response.status(), -1);
        } finally {
            if (counted) {
                inFlight.decrementAndGet();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
