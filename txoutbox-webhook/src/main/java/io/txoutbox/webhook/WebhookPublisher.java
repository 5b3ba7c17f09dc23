package io.txoutbox.webhook;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.internal.transport.ClassPath;
import io.txoutbox.internal.transport.PublisherThreads;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes events as HTTP webhooks, signed per <a href="https://www.standardwebhooks.com/">Standard
 * Webhooks</a>, on Jetty's HTTP client. Each event is POSTed to every endpoint whose event-type filter
 * matches it; the body is the payload bytes, the {@code Content-Type} the event's, and the headers are the
 * {@link MessageHeaders} plus {@code webhook-id} (the event id), {@code webhook-timestamp} and
 * {@code webhook-signature}.
 *
 * <pre>{@code
 * WebhookPublisher webhooks = WebhookPublisher.builder()
 *         .endpoint(WebhookEndpoint.builder("https://billing.example.com/hooks")
 *                 .secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
 *                 .eventTypes("order.*")
 *                 .build())
 *         .build();
 * }</pre>
 *
 * <p>Outcomes, per event: {@link Outcome#PUBLISHED} once every matching endpoint answered 2xx. Any endpoint
 * answering 3xx (redirects are never followed) or a 4xx other than 408 and 429, or a target refused as a
 * private address, makes it {@link Outcome#DEAD}. Otherwise any endpoint answering 408, 429 or 5xx, or failing
 * to connect or answer in time, makes it {@link Outcome#RETRY}, no sooner than its {@code Retry-After}. An
 * event that no endpoint matches is dead. Endpoints that already answered 2xx for a retried event are
 * remembered in memory and skipped on the retry; a restart or another relay sends it to them again (at least
 * once: receivers deduplicate by {@code webhook-id}).
 *
 * <p>Server-side request forgery: unless private networks are allowed, the client connects only through a
 * resolver that checks every address of the endpoint's host and hands over exactly those, so the address
 * checked is the address connected (no second lookup a DNS rebinding could answer differently); the
 * {@code Host} header, TLS SNI and certificate verification keep the host name. Redirects are never
 * followed and no proxy is used.
 *
 * <p>Thread-safe; several relays may share one publisher. {@link #close()} ends the threads it created.
 */
public final class WebhookPublisher implements Publisher {
    /** The Standard Webhooks message id header: the event id, the same on every retry. */
    public static final String WEBHOOK_ID = "webhook-id";
    /** The Standard Webhooks timestamp header: Unix seconds when this attempt was signed. */
    public static final String WEBHOOK_TIMESTAMP = "webhook-timestamp";
    /** The Standard Webhooks signature header: {@code v1,<base64>} per secret, space-separated. */
    public static final String WEBHOOK_SIGNATURE = "webhook-signature";

    private static final Logger log = LoggerFactory.getLogger(WebhookPublisher.class);
    private static final String DEFAULT_CONTENT_TYPE = "application/octet-stream";
    /** Event headers that would break the request if copied: framing and hop-by-hop headers. */
    private static final Set<String> SKIPPED_HEADERS = Set.of(
            "connection",
            "content-length",
            "expect",
            "host",
            "upgrade",
            "transfer-encoding",
            "te",
            "trailer",
            "keep-alive",
            "proxy-connection",
            "http2-settings",
            "content-type",
            "user-agent",
            WEBHOOK_ID,
            WEBHOOK_TIMESTAMP,
            WEBHOOK_SIGNATURE);

    private static final AtomicInteger PUBLISHERS = new AtomicInteger();
    /** Marks a name that did not resolve: DNS may come back, so it retries instead of going dead. */
    private static final String UNRESOLVED = "cannot resolve host ";

    private final List<WebhookEndpoint> endpoints;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final boolean allowPrivateNetworks;
    /** The allow-private-networks setting as the caller spelled it, for a refusal of {@link #checkConnections}. */
    private final String allowPrivateNetworksSetting;

    private final InstantSource clock;
    private final AddressPolicy.Resolver resolver;
    private final ExecutorService ownExecutor;
    private final Executor executor;
    private final HttpClient client;
    private final PinningResolver pinning;
    private final AsyncLimiter limiter;
    private final DeliveryMemory memory;
    private final int maxConcurrentRequests;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Function<ClaimedEvent, Map<String, String>> messageHeaders;

    private WebhookPublisher(Builder b, WebhookSettings settings) {
        this.endpoints = List.copyOf(b.endpoints);
        this.connectTimeout = settings.connectTimeout();
        this.requestTimeout = settings.requestTimeout();
        this.allowPrivateNetworks = settings.allowPrivateNetworks();
        this.allowPrivateNetworksSetting = settings.spelling().of(WebhookSettings.ALLOW_PRIVATE_NETWORKS);
        this.clock = b.clock;
        this.resolver = b.resolver;
        this.maxConcurrentRequests = settings.maxConcurrentRequests();
        if (b.cloudEvents == null) {
            this.messageHeaders = MessageHeaders::of;
        } else {
            this.messageHeaders = new CloudEventsHeaders(b.cloudEvents);
        }
        if (b.executor == null) {
            this.ownExecutor = Executors.newCachedThreadPool(threads());
            this.executor = ownExecutor;
        } else {
            this.ownExecutor = null;
            this.executor = b.executor;
        }
        this.pinning = new PinningResolver(resolver, allowPrivateNetworks, executor);
        ClientConnector connector = b.connector == null ? new ClientConnector() : b.connector;
        // The client's own threads (its selector runs on one for good): never the caller's executor, which
        // may be small. They are daemons, ended by close().
        int publisher = PUBLISHERS.incrementAndGet();
        QueuedThreadPool io = new QueuedThreadPool(16, 2);
        io.setName("txoutbox-webhook-" + publisher + "-http");
        io.setDaemon(true);
        connector.setExecutor(io);
        connector.setScheduler(new ScheduledExecutorScheduler("txoutbox-webhook-" + publisher + "-timer", true));
        connector.setConnectTimeout(connectTimeout);
        // The JVM's default trust store; the certificate must name the endpoint's host.
        SslContextFactory.Client tls = new SslContextFactory.Client();
        tls.setEndpointIdentificationAlgorithm("HTTPS");
        connector.setSslContextFactory(tls);
        this.client = new HttpClient(new HttpClientTransportOverHTTP(connector));
        client.setExecutor(io);
        client.setScheduler(connector.getScheduler());
        client.setSocketAddressResolver(pinning);
        client.setFollowRedirects(false);
        client.setConnectTimeout(connectTimeout.toMillis());
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, settings.userAgent()));
        client.setMaxConnectionsPerDestination(maxConcurrentRequests);
        client.setMaxRequestsQueuedPerDestination(Math.max(1024, maxConcurrentRequests * 4));
        // Responses are discarded: no decoder is needed, and none may ask for compressed bodies. No protocol
        // handler either: a 3xx is never followed, a 401 is an answer (no authentication dance).
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("the webhook HTTP client did not start: " + e, e);
        }
        // (The client installs its default handlers and decoders when it starts.)
        client.getContentDecoderFactories().clear();
        client.getProtocolHandlers().clear();
        this.limiter = new AsyncLimiter(maxConcurrentRequests, executor);
        this.memory = new DeliveryMemory(settings.rememberAcceptedDeliveries());
    }

    /** @return a builder with no endpoint: add at least one */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the endpoints, in the order given */
    public List<WebhookEndpoint> endpoints() {
        return endpoints;
    }

    /**
     * Sends every event to its matching endpoints, at most {@code maxConcurrentRequests} requests at once, and
     * completes with one outcome per event in batch order once every request was answered or failed. The
     * stage never completes exceptionally.
     *
     * @throws IllegalStateException when the publisher is closed (the relay retries the batch)
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        if (closed.get()) {
            throw new IllegalStateException("WebhookPublisher is closed");
        }
        List<CompletableFuture<PublishOutcome>> outcomes = new ArrayList<>(batch.size());
        for (ClaimedEvent event : batch) {
            outcomes.add(deliver(event));
        }
        return CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new))
                .thenApply(
                        done -> outcomes.stream().map(CompletableFuture::join).toList());
    }

    private CompletableFuture<PublishOutcome> deliver(ClaimedEvent event) {
        List<WebhookEndpoint> matching = new ArrayList<>();
        for (WebhookEndpoint endpoint : endpoints) {
            if (endpoint.accepts(event.eventType())) {
                matching.add(endpoint);
            }
        }
        if (matching.isEmpty()) {
            List<String> filters =
                    endpoints.stream().map(e -> e.name() + " " + e.eventTypes()).toList();
            return CompletableFuture.completedFuture(PublishOutcome.dead(
                    "no webhook endpoint matches event type '" + event.eventType() + "' (endpoints: " + filters + ")"));
        }
        Set<String> acceptedBefore = memory.acceptedBy(event.id());
        List<WebhookEndpoint> pending = new ArrayList<>();
        for (WebhookEndpoint endpoint : matching) {
            if (!acceptedBefore.contains(endpoint.name())) {
                pending.add(endpoint);
            }
        }
        if (pending.isEmpty()) {
            memory.forget(event.id());
            return CompletableFuture.completedFuture(PublishOutcome.PUBLISHED);
        }
        List<CompletableFuture<PublishOutcome>> sends = new ArrayList<>(pending.size());
        for (WebhookEndpoint endpoint : pending) {
            sends.add(limiter.submit(() -> attempt(event, endpoint))
                    .exceptionally(e ->
                            PublishOutcome.retry(prefix(endpoint) + "unexpected failure: " + describe(unwrap(e)))));
        }
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                .thenApply(done -> combine(
                        event,
                        pending,
                        sends.stream().map(CompletableFuture::join).toList()));
    }

    /**
     * Dead wins (an endpoint that refuses the event will refuse it again: retrying only wastes attempts),
     * then retry (with the latest Retry-After any endpoint asked for), then published.
     */
    private PublishOutcome combine(ClaimedEvent event, List<WebhookEndpoint> sentTo, List<PublishOutcome> results) {
        List<String> accepted = new ArrayList<>();
        List<String> dead = new ArrayList<>();
        List<String> retry = new ArrayList<>();
        Instant notBefore = null;
        boolean everyRetryHasNotBefore = true;
        for (int i = 0; i < results.size(); i++) {
            PublishOutcome r = results.get(i);
            switch (r.outcome()) {
                case PUBLISHED -> accepted.add(sentTo.get(i).name());
                case DEAD -> dead.add(r.reason());
                case RETRY -> {
                    retry.add(r.reason());
                    if (r.notBefore() == null) {
                        everyRetryHasNotBefore = false;
                    } else if (notBefore == null || r.notBefore().isAfter(notBefore)) {
                        notBefore = r.notBefore();
                    }
                }
            }
        }
        if (!dead.isEmpty()) {
            memory.forget(event.id());
            List<String> reasons = new ArrayList<>(dead);
            reasons.addAll(retry);
            PublishOutcome outcome = PublishOutcome.dead(String.join("; ", reasons));
            log.debug("webhook event {} ({}) is dead: {}", event.id(), event.eventType(), outcome.reason());
            return outcome;
        }
        if (!retry.isEmpty()) {
            memory.remember(event.id(), accepted);
            String reason = String.join("; ", retry);
            log.debug("webhook event {} ({}) will be retried: {}", event.id(), event.eventType(), reason);
            // A Retry-After is honoured even when another endpoint failed without one: the later time wins.
            return notBefore != null ? PublishOutcome.retryNotBefore(reason, notBefore) : PublishOutcome.retry(reason);
        }
        memory.forget(event.id());
        return PublishOutcome.PUBLISHED;
    }

    private CompletableFuture<PublishOutcome> attempt(ClaimedEvent event, WebhookEndpoint endpoint) {
        CompletableFuture<PublishOutcome> outcome = new CompletableFuture<>();
        request(event, endpoint).send(result -> {
            if (result.isSucceeded() || result.getResponse() != null && result.getResponseFailure() == null) {
                outcome.complete(outcomeOf(endpoint, result.getResponse()));
            } else {
                outcome.complete(outcomeOf(endpoint, unwrap(result.getFailure())));
            }
        });
        return outcome.exceptionally(e -> PublishOutcome.retry(prefix(endpoint) + describe(unwrap(e))));
    }

    private Request request(ClaimedEvent event, WebhookEndpoint endpoint) {
        URI url = endpoint.url();
        String contentType = event.contentType() == null || !Headers.isValidValue(event.contentType())
                ? DEFAULT_CONTENT_TYPE
                : event.contentType();
        Request request = client.newRequest(url)
                .method(HttpMethod.POST)
                .timeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .body(new BytesRequestContent(contentType, event.payload()));
        Map<String, String[]> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : messageHeaders.apply(event).entrySet()) {
            String key = h.getKey().toLowerCase(Locale.ROOT);
            if (!SKIPPED_HEADERS.contains(key)) {
                headers.putIfAbsent(key, new String[] {h.getKey(), h.getValue()});
            }
        }
        for (Map.Entry<String, String> h : endpoint.headers().entrySet()) {
            headers.put(h.getKey().toLowerCase(Locale.ROOT), new String[] {h.getKey(), h.getValue()});
        }
        String id = event.id().toString();
        String timestamp = Long.toString(clock.instant().getEpochSecond());
        String signature = Signatures.header(endpoint.keys(), id, timestamp, event.payload());
        request.headers(h -> {
            for (String[] header : headers.values()) {
                if (Headers.isValidName(header[0]) && Headers.isValidValue(header[1])) {
                    h.put(header[0], header[1]);
                } else {
                    // A row written by another program may carry a header HTTP cannot: skip it, never the event.
                    log.debug("webhook event {}: header '{}' skipped, HTTP cannot carry it", event.id(), header[0]);
                }
            }
            h.put(HttpHeader.CONTENT_TYPE, contentType);
            h.put(WEBHOOK_ID, id);
            h.put(WEBHOOK_TIMESTAMP, timestamp);
            h.put(WEBHOOK_SIGNATURE, signature);
        });
        return request;
    }

    private PublishOutcome outcomeOf(WebhookEndpoint endpoint, Response response) {
        int status = response.getStatus();
        String what = prefix(endpoint) + "HTTP " + status + " from " + endpoint.target();
        if (status >= 200 && status < 300) {
            return PublishOutcome.PUBLISHED;
        }
        if (status >= 300 && status < 400) {
            String location = response.getHeaders().get(HttpHeader.LOCATION);
            String to = location == null ? "" : locationTarget(location);
            return PublishOutcome.dead(
                    what + ": redirects are refused, not followed" + to + "; point the endpoint at the final URL");
        }
        if (status == 408 || status == 429 || status >= 500 && status < 600) {
            String retryAfter = response.getHeaders().get(HttpHeader.RETRY_AFTER);
            Instant notBefore = RetryAfter.parse(retryAfter, clock.instant());
            return notBefore == null
                    ? PublishOutcome.retry(what)
                    : PublishOutcome.retryNotBefore(what + " (Retry-After " + retryAfter.trim() + ")", notBefore);
        }
        if (status >= 400 && status < 500) {
            return PublishOutcome.dead(what);
        }
        return PublishOutcome.retry(what + ": unexpected status");
    }

    private PublishOutcome outcomeOf(WebhookEndpoint endpoint, Throwable failure) {
        Throwable error = failure;
        // Jetty may wrap the cause; the innermost known failure says what happened.
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PinningResolver.RefusedAddressException
                    || t instanceof UnknownHostException
                    || t instanceof SocketTimeoutException
                    || t instanceof TimeoutException
                    || t instanceof ConnectException) {
                error = t;
                break;
            }
        }
        if (error instanceof PinningResolver.RefusedAddressException refused) {
            return PublishOutcome.dead(prefix(endpoint) + "refused: " + refused.getMessage());
        }
        if (error instanceof UnknownHostException) {
            // DNS may come back: retry, never dead.
            return PublishOutcome.retry(
                    prefix(endpoint) + UNRESOLVED + "'" + bare(endpoint.url().getHost()) + "'");
        }
        String where = prefix(endpoint) + endpoint.target() + ": ";
        if (error instanceof SocketTimeoutException) {
            return PublishOutcome.retry(where + "connect timed out after " + connectTimeout.toMillis() + " ms");
        }
        if (error instanceof TimeoutException) {
            return PublishOutcome.retry(where + "no response within " + requestTimeout.toMillis() + " ms");
        }
        if (error instanceof ConnectException) {
            return PublishOutcome.retry(where + "cannot connect (" + describe(error) + ")");
        }
        if (error instanceof IOException) {
            return PublishOutcome.retry(where + describe(error));
        }
        return PublishOutcome.retry(where + "unexpected failure: " + describe(error));
    }

    static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** Names a redirect's target by host and path only: a query may carry a token. */
    private static String locationTarget(String location) {
        try {
            URI uri = URI.create(location.trim());
            return uri.getHost() == null
                    ? " (to " + uri.getRawPath() + ")"
                    : " (to " + WebhookEndpoint.target(uri) + ")";
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /** Named endpoints are named in reasons; an unnamed one is named by its target, which follows anyway. */
    private static String prefix(WebhookEndpoint endpoint) {
        return endpoint.name().equals(endpoint.target()) ? "" : "webhook '" + endpoint.name() + "': ";
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static ThreadFactory threads() {
        return PublisherThreads.daemonThreads("txoutbox-webhook-" + PUBLISHERS.incrementAndGet() + "-");
    }

    /**
     * A dry run for a configuration check: resolves each endpoint's host once, applies the private-network
     * policy exactly as a delivery does, and only then opens and closes a TCP connection to the addresses
     * that were checked (no second lookup). No request is sent, so nothing is delivered. Every endpoint is
     * checked against the policy before any is connected to.
     *
     * @param timeout how long one connection attempt may take
     * @return per endpoint, the host and port that accepted a connection ({@code hooks.example.com:443})
     * @throws OutboxValidationException field {@code WebhookPublisher.allowPrivateNetworks} (as the settings
     *     spelled it: {@code ...webhook.allow-private-networks} from the server's YAML), when an
     *     endpoint resolves to an address the policy refuses; then nothing was connected to
     * @throws IOException when a host does not resolve or none of its addresses accepts a connection in time
     */
    public List<String> checkConnections(Duration timeout) throws IOException {
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        List<List<InetSocketAddress>> targets = new ArrayList<>();
        for (WebhookEndpoint endpoint : endpoints) {
            URI url = endpoint.url();
            try {
                targets.add(pinning.pinned(url.getHost(), port(url)));
            } catch (PinningResolver.RefusedAddressException e) {
                throw new OutboxValidationException(
                        allowPrivateNetworksSetting,
                        null,
                        "WebhookEndpoint '" + endpoint.name() + "' is refused: " + e.getMessage());
            } catch (UnknownHostException e) {
                throw new UnknownHostException(
                        "webhook endpoint '" + endpoint.name() + "': " + UNRESOLVED + "'" + bare(url.getHost()) + "'");
            }
        }
        List<String> reached = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            WebhookEndpoint endpoint = endpoints.get(i);
            String where = bare(endpoint.url().getHost()) + ":" + port(endpoint.url());
            IOException last = null;
            for (InetSocketAddress address : targets.get(i)) {
                try (Socket socket = new Socket()) {
                    socket.connect(address, millis);
                    last = null;
                    break;
                } catch (IOException e) {
                    last = e;
                }
            }
            if (last != null) {
                throw new IOException("webhook endpoint '" + endpoint.name() + "' (" + where + "): cannot connect ("
                        + describe(last) + ")");
            }
            reached.add(where);
        }
        return reached;
    }

    private static int port(URI url) {
        return url.getPort() >= 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    /**
     * Stops accepting batches and ends the threads this publisher created, waiting up to the request timeout
     * for requests in flight. A user-given executor is left running. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            client.stop();
        } catch (Exception e) {
            log.debug("stopping the HTTP client failed", e);
        }
        if (ownExecutor != null) {
            PublisherThreads.stop(ownExecutor, requestTimeout);
        }
    }

    /** Shows the endpoints without secrets, header values or query strings. */
    @Override
    public String toString() {
        return "WebhookPublisher[endpoints=" + endpoints + ", connectTimeout=" + connectTimeout + ", requestTimeout="
                + requestTimeout + ", maxConcurrentRequests=" + maxConcurrentRequests + ", allowPrivateNetworks="
                + allowPrivateNetworks + "]";
    }

    /** Builds a {@link WebhookPublisher}; everything is checked at {@link #build()}. */
    public static final class Builder {
        private final List<WebhookEndpoint> endpoints = new ArrayList<>();
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(WebhookSettings.SETTINGS, WebhookSettings.JAVA, "a webhook publisher");

        private InstantSource clock = InstantSource.system();
        private Executor executor;
        private AddressPolicy.Resolver resolver = AddressPolicy.Resolver.SYSTEM;
        private ClientConnector connector;
        private CloudEventsMapping cloudEvents;

        private Builder() {}

        /**
         * @param endpoint a receiver; add as many as needed (names must differ)
         * @return this builder
         */
        public Builder endpoint(WebhookEndpoint endpoint) {
            endpoints.add(Objects.requireNonNull(endpoint, "endpoint"));
            return this;
        }

        /**
         * @param endpoints receivers to add
         * @return this builder
         */
        public Builder endpoints(Collection<WebhookEndpoint> endpoints) {
            endpoints.forEach(this::endpoint);
            return this;
        }

        /**
         * @param timeout how long to wait for a TCP (and TLS) connection (default 5 s); then the event retries
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            return set(WebhookSettings.CONNECT_TIMEOUT, timeout);
        }

        /**
         * @param timeout how long to wait for the response status after sending (default 10 s); then the
         *     event retries. Keep {@code requestTimeout × ceil(batch × endpoints / maxConcurrentRequests)}
         *     below the relay's publish timeout, or a slow receiver makes the whole batch time out.
         * @return this builder
         */
        public Builder requestTimeout(Duration timeout) {
            return set(WebhookSettings.REQUEST_TIMEOUT, timeout);
        }

        /**
         * @param max how many requests may be in flight at once across all batches and endpoints (default 16)
         * @return this builder
         */
        public Builder maxConcurrentRequests(int max) {
            return set(WebhookSettings.MAX_CONCURRENT_REQUESTS, max);
        }

        /**
         * @param allow whether endpoints may resolve to loopback, private, link-local, unique-local,
         *     multicast, unspecified or other reserved addresses (default false: such a target is refused
         *     and the event is dead). Allow it only when the endpoints are trusted configuration.
         * @return this builder
         */
        public Builder allowPrivateNetworks(boolean allow) {
            return set(WebhookSettings.ALLOW_PRIVATE_NETWORKS, allow);
        }

        /**
         * @param clock the time of {@code webhook-timestamp} and the base of {@code Retry-After} seconds
         *     (default the system clock)
         * @return this builder
         */
        public Builder clock(InstantSource clock) {
            this.clock = clock;
            return this;
        }

        /**
         * @param events how many events to remember the accepting endpoints of, so that a retry skips them
         *     (default 10,000; 0 sends every retry to every matching endpoint)
         * @return this builder
         */
        public Builder rememberAcceptedDeliveries(int events) {
            return set(WebhookSettings.REMEMBER_ACCEPTED_DELIVERIES, events);
        }

        /**
         * @param executor runs the HttpClient's work and name resolution (default: the publisher's own daemon
         *     threads {@code txoutbox-webhook-*}, ended by {@link WebhookPublisher#close()}; a given executor
         *     is never shut down by the publisher)
         * @return this builder
         */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /**
         * Sends every event as a CloudEvent in the HTTP binding's binary content mode: the attributes as
         * {@code ce-} headers ({@code ce-id} = event id, {@code ce-type}, {@code ce-source}, {@code
         * ce-subject} = aggregate id, {@code ce-time}, {@code ce-specversion}, {@code ce-eventversion}),
         * {@code datacontenttype} as {@code Content-Type}, the body (and so the signature) unchanged; the
         * headers that are not attributes and the Standard Webhooks headers stay as they are. Needs {@code
         * io.txoutbox:txoutbox-cloudevents} and {@code io.cloudevents:cloudevents-http-basic} on the class
         * path. Default: off, the plain headers of {@link MessageHeaders}.
         *
         * @param mapping the CloudEvents mapping (its {@code source} above all)
         * @return this builder
         */
        public Builder cloudEvents(CloudEventsMapping mapping) {
            this.cloudEvents = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /** For tests: resolves host names for the private-network check and the connection. */
        Builder resolver(AddressPolicy.Resolver resolver) {
            this.resolver = resolver;
            return this;
        }

        /** For tests: the connector that opens connections (to see where it is asked to connect). */
        Builder connector(ClientConnector connector) {
            this.connector = connector;
            return this;
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(WebhookSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link WebhookSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * @return the publisher
         * @throws OutboxValidationException when there is no endpoint, two share a name, a timeout is not
         *     positive, a limit is out of range, or an endpoint's IP literal is a private address while private
         *     networks are not allowed
         */
        public WebhookPublisher build() {
            if (cloudEvents != null
                    && !ClassPath.has("io.cloudevents.http.HttpMessageFactory", WebhookPublisher.class)) {
                throw new OutboxValidationException(
                        "WebhookPublisher.cloudEvents",
                        null,
                        "WebhookPublisher.cloudEvents needs io.cloudevents:cloudevents-http-basic on the class path");
            }
            if (endpoints.isEmpty()) {
                throw new OutboxValidationException(
                        "WebhookPublisher.endpoint", null, "WebhookPublisher has no endpoint: add endpoint(...)");
            }
            Set<String> names = new HashSet<>();
            for (WebhookEndpoint e : endpoints) {
                if (!names.add(e.name())) {
                    throw new OutboxValidationException(
                            "WebhookPublisher.endpoint",
                            null,
                            "WebhookPublisher has two endpoints named '" + e.name() + "'; give each a unique name");
                }
            }
            Spelling spelled = given.spelling();
            WebhookSettings settings = WebhookSettings.of(given.values(), spelled);
            if (clock == null) {
                throw new OutboxValidationException("WebhookPublisher.clock", null, "WebhookPublisher.clock is null");
            }
            if (!settings.allowPrivateNetworks()) {
                for (WebhookEndpoint e : endpoints) {
                    refuseLiteral(e, spelled.of(WebhookSettings.ALLOW_PRIVATE_NETWORKS));
                }
            }
            WebhookPublisher publisher = new WebhookPublisher(this, settings);
            log.info("webhook publisher built: {}", publisher);
            return publisher;
        }

        private static void refuseLiteral(WebhookEndpoint endpoint, String allowPrivateNetworks) {
            String host = endpoint.url().getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (!AddressPolicy.isLiteral(host)) {
                return; // names are resolved and checked at every send
            }
            try {
                String why = AddressPolicy.check(host, AddressPolicy.Resolver.SYSTEM);
                if (why != null) {
                    throw new OutboxValidationException(
                            allowPrivateNetworks, null, "WebhookEndpoint '" + endpoint.name() + "' is refused: " + why);
                }
            } catch (UnknownHostException e) {
                throw new OutboxValidationException(
                        "WebhookEndpoint.url",
                        null,
                        "WebhookEndpoint '" + endpoint.name() + "' has an invalid IP address");
            }
        }
    }
}
