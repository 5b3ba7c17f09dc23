package io.txoutbox.sqs;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.internal.transport.Outcomes;
import io.txoutbox.internal.transport.PublisherThreads;
import io.txoutbox.internal.transport.Route;
import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.AbstractPublisherBuilder;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * Publishes outbox events to Amazon SQS queues (standard and FIFO) with the AWS SDK for Java v2's
 * asynchronous client. Build it with {@link #builder()}.
 *
 * <p>What it promises, per event of a batch:
 *
 * <ul>
 *   <li>{@code PUBLISHED} only after SQS answered the {@code SendMessageBatch} request with a success
 *       entry for that event: the message is stored in the queue. On a FIFO queue ({@code .fifo}) the
 *       message group id is the aggregate id and the deduplication id is the event id, so a re-publish
 *       within SQS's five-minute deduplication interval is accepted and stored once.
 *   <li>{@code DEAD} when it can never succeed as it is: the queue does not exist or its name is not
 *       valid, the message is over {@code maxMessageBytes} (body and attributes, checked before
 *       sending), a text payload that is not UTF-8, an empty payload, or SQS refused the entry as the
 *       sender's fault (invalid characters, for example) or refused the request (4xx, for example
 *       access denied).
 *   <li>{@code RETRY} for everything else: throttling and SQS's internal errors (after the SDK's own
 *       retries with backoff), authentication failures, timeouts, an unreachable endpoint.
 * </ul>
 *
 * <p>The events of a batch are grouped by queue and sent as {@code SendMessageBatch} requests of at
 * most ten entries and at most {@code maxMessageBytes} in all; the requests of a standard queue go in
 * parallel; on a FIFO queue the requests that share a message group go one after the other, so that a
 * group keeps its order. Message attributes and body: see {@link SqsMessages}. The client is created at
 * {@link Builder#build()}; a batch is prepared on a thread of the publisher, so {@link
 * #publish(List)} returns at once. Thread-safe. {@link #close()} closes the client it created, never a
 * given one.
 */
public final class SqsPublisher implements Publisher {
    /** SQS's limit of entries per {@code SendMessageBatch} request. */
    public static final int MAX_BATCH_ENTRIES = 10;

    /** The default {@code maxMessageBytes}: 256 KiB, what every SQS queue and compatible server accepts. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 262_144;

    /** The largest {@code maxMessageBytes}: 1 MiB, SQS's limit for a queue that allows it. */
    public static final int MAX_MESSAGE_BYTES = 1_048_576;

    /** FIFO message groups are spread over this many chains of sequential requests. */
    private static final int FIFO_LANES = 8;

    private static final Logger log = LoggerFactory.getLogger(SqsPublisher.class);

    private final SqsAsyncClient client;
    private final boolean ownClient;
    private final Router router;
    private final Duration publishTimeout;
    private final int maxMessageBytes;
    private final String description;
    private final PublisherThreads threads;
    private final Map<String, CompletableFuture<String>> queueUrls = new ConcurrentHashMap<>();
    private volatile boolean reachable = true;

    private SqsPublisher(Builder b, SqsSettings settings, Router router, SqsAsyncClient client, boolean ownClient) {
        this.client = client;
        this.ownClient = ownClient;
        String queuePrefix = settings.queuePrefix();
        this.router = queuePrefix.isEmpty() ? router : prefixed(router, queuePrefix);
        this.publishTimeout = settings.publishTimeout();
        this.maxMessageBytes = settings.maxMessageBytes();
        this.description = "SqsPublisher[" + (ownClient ? describe(b) : "given client")
                + (queuePrefix.isEmpty() ? "" : ", queuePrefix=" + queuePrefix)
                + ", maxMessageBytes=" + maxMessageBytes + ", publishTimeout=" + publishTimeout.toMillis() + " ms]";
        this.threads = new PublisherThreads("sqs", description);
    }

    /** A prefix before a queue URL could never name a queue: routes that are URLs are used as they are. */
    private static Router prefixed(Router router, String prefix) {
        return e -> {
            String route = router.route(e);
            return route == null || QueueNames.isUrl(route) ? route : prefix + route;
        };
    }

    private static String describe(Builder b) {
        return "region=" + b.region + (b.endpoint == null ? "" : ", endpoint=" + b.endpoint) + ", credentials="
                + (b.accessKeyId != null
                        ? "static ****"
                        : b.credentialsProvider != null ? "given provider" : "default chain");
    }

    /** @return a builder; give a region (or a client), and an endpoint for an SQS-compatible server */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Sends the batch and completes when SQS answered every request, or when {@code publishTimeout}
     * passed (then the unanswered events are retries). It never completes exceptionally for an SQS
     * failure: those are per-event outcomes.
     *
     * @param batch the claimed events, never empty
     * @return one outcome per event, in batch order; a failed stage only if this publisher is closed
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        AtomicReferenceArray<PublishOutcome> outcomes = new AtomicReferenceArray<>(batch.size());
        CompletableFuture<Void> sent;
        try {
            sent = threads.start(() -> send(batch, outcomes)).thenCompose(all -> all);
        } catch (IllegalStateException closed) {
            return CompletableFuture.failedFuture(closed);
        }
        return sent.completeOnTimeout(null, publishTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .handle((done, error) -> collect(outcomes, error));
    }

    private List<PublishOutcome> collect(AtomicReferenceArray<PublishOutcome> outcomes, Throwable error) {
        PublishOutcome missing = error != null
                ? PublishOutcome.retry("publish to SQS failed: " + Failures.describe(error))
                : PublishOutcome.retry("no answer from SQS within " + publishTimeout.toMillis()
                        + " ms (SqsPublisher.Builder.publishTimeout)");
        return Outcomes.orElse(outcomes, missing);
    }

    /** Routes and encodes every event, then starts one chain of requests per queue. */
    private CompletableFuture<Void> send(List<ClaimedEvent> batch, AtomicReferenceArray<PublishOutcome> outcomes) {
        Map<String, List<Entries.Entry>> byQueue = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            ClaimedEvent event = batch.get(i);
            Route route = Route.of(event, router, QueueNames::problem);
            if (route.dead() != null) {
                outcomes.set(i, route.dead());
                continue;
            }
            String queue = route.destination();
            Entries.Encoded encoded = Entries.encode(i, event, QueueNames.isFifo(queue), maxMessageBytes);
            if (encoded.problem() != null) {
                outcomes.set(i, PublishOutcome.dead(encoded.problem()));
                continue;
            }
            byQueue.computeIfAbsent(queue, q -> new ArrayList<>()).add(encoded.entry());
        }
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Map.Entry<String, List<Entries.Entry>> q : byQueue.entrySet()) {
            String queue = q.getKey();
            List<Entries.Entry> entries = q.getValue();
            all.add(queueUrl(queue)
                    .thenCompose(url -> sendToQueue(queue, url, entries, outcomes))
                    .exceptionally(error -> {
                        if (Failures.isQueueMissing(error)) {
                            queueUrls.remove(queue);
                        }
                        fill(outcomes, entries, Failures.ofRequest(error, queue));
                        return null;
                    }));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Void> sendToQueue(
            String queue, String url, List<Entries.Entry> entries, AtomicReferenceArray<PublishOutcome> outcomes) {
        List<CompletableFuture<Void>> lanes = new ArrayList<>();
        if (QueueNames.isFifo(queue)) {
            List<List<Entries.Entry>> byLane = new ArrayList<>();
            for (int i = 0; i < FIFO_LANES; i++) {
                byLane.add(new ArrayList<>());
            }
            for (Entries.Entry e : entries) {
                byLane.get(Math.floorMod(e.groupId().hashCode(), FIFO_LANES)).add(e);
            }
            for (List<Entries.Entry> lane : byLane) {
                if (!lane.isEmpty()) {
                    lanes.add(sendInOrder(queue, url, chunks(lane), 0, new HashSet<>(), outcomes));
                }
            }
        } else {
            for (List<Entries.Entry> chunk : chunks(entries)) {
                lanes.add(sendChunk(queue, url, chunk, outcomes));
            }
        }
        return CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new));
    }

    /**
     * Sends a FIFO lane's chunks one after the other. A later event of a group whose earlier event of
     * this batch failed is held back (a retry), so that SQS never stores a group out of order.
     */
    private CompletableFuture<Void> sendInOrder(
            String queue,
            String url,
            List<List<Entries.Entry>> chunks,
            int next,
            Set<String> failedGroups,
            AtomicReferenceArray<PublishOutcome> outcomes) {
        if (next == chunks.size()) {
            return CompletableFuture.completedFuture(null);
        }
        List<Entries.Entry> chunk = new ArrayList<>();
        for (Entries.Entry e : chunks.get(next)) {
            if (failedGroups.contains(e.groupId())) {
                outcomes.set(
                        e.index(),
                        PublishOutcome.retry("held back: an earlier event of its message group failed in this batch"));
            } else {
                chunk.add(e);
            }
        }
        CompletableFuture<Void> sent =
                chunk.isEmpty() ? CompletableFuture.completedFuture(null) : sendChunk(queue, url, chunk, outcomes);
        return sent.thenCompose(done -> {
            for (Entries.Entry e : chunk) {
                PublishOutcome o = outcomes.get(e.index());
                if (o == null || o.outcome() != Outcome.PUBLISHED) {
                    failedGroups.add(e.groupId());
                }
            }
            return sendInOrder(queue, url, chunks, next + 1, failedGroups, outcomes);
        });
    }

    /** @return the entries in requests of at most ten entries and at most {@code maxMessageBytes} */
    private List<List<Entries.Entry>> chunks(List<Entries.Entry> entries) {
        List<List<Entries.Entry>> chunks = new ArrayList<>();
        List<Entries.Entry> current = new ArrayList<>();
        long bytes = 0;
        for (Entries.Entry e : entries) {
            if (!current.isEmpty() && (current.size() == MAX_BATCH_ENTRIES || bytes + e.bytes() > maxMessageBytes)) {
                chunks.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(e);
            bytes += e.bytes();
        }
        if (!current.isEmpty()) {
            chunks.add(current);
        }
        return chunks;
    }

    private CompletableFuture<Void> sendChunk(
            String queue, String url, List<Entries.Entry> chunk, AtomicReferenceArray<PublishOutcome> outcomes) {
        List<SendMessageBatchRequestEntry> requestEntries = new ArrayList<>(chunk.size());
        Map<String, Integer> indexById = new HashMap<>();
        for (Entries.Entry e : chunk) {
            requestEntries.add(e.entry());
            indexById.put(e.entry().id(), e.index());
        }
        SendMessageBatchRequest request = SendMessageBatchRequest.builder()
                .queueUrl(url)
                .entries(requestEntries)
                .build();
        CompletableFuture<SendMessageBatchResponse> response;
        try {
            response = client.sendMessageBatch(request);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        return response.handle((r, error) -> {
            if (error != null) {
                if (Failures.isQueueMissing(error)) {
                    queueUrls.remove(queue);
                }
                noteFailure(error);
                fill(outcomes, chunk, Failures.ofRequest(error, queue));
                return null;
            }
            noteReachable();
            for (SendMessageBatchResultEntry ok : r.successful()) {
                Integer index = indexById.get(ok.id());
                if (index != null) {
                    outcomes.set(index, PublishOutcome.PUBLISHED);
                }
            }
            for (BatchResultErrorEntry failed : r.failed()) {
                Integer index = indexById.get(failed.id());
                if (index != null) {
                    outcomes.set(index, Failures.ofEntry(failed, queue));
                }
            }
            for (Entries.Entry e : chunk) {
                outcomes.compareAndSet(
                        e.index(), null, PublishOutcome.retry("SQS answered the request without this entry"));
            }
            return null;
        });
    }

    /** @return the queue's URL: the route itself if it is one, else SQS's answer to GetQueueUrl, cached */
    private CompletableFuture<String> queueUrl(String queue) {
        if (QueueNames.isUrl(queue)) {
            return CompletableFuture.completedFuture(queue);
        }
        CompletableFuture<String> known = queueUrls.get(queue);
        if (known != null) {
            return known;
        }
        CompletableFuture<String> mine = new CompletableFuture<>();
        known = queueUrls.putIfAbsent(queue, mine);
        if (known != null) {
            return known;
        }
        CompletableFuture<String> lookup;
        try {
            lookup = client.getQueueUrl(r -> r.queueName(queue)).thenApply(r -> r.queueUrl());
        } catch (RuntimeException e) {
            lookup = CompletableFuture.failedFuture(e);
        }
        lookup.whenComplete((url, error) -> {
            if (error != null) {
                // Only a known URL is kept: a queue created later, or the network back, works on the next batch.
                queueUrls.remove(queue, mine);
                noteFailure(error);
                mine.completeExceptionally(error);
            } else {
                mine.complete(url);
            }
        });
        return mine;
    }

    private void noteFailure(Throwable error) {
        if (Failures.ofRequest(error, "").outcome() == Outcome.RETRY) {
            if (reachable) {
                log.warn("{}: a request failed, the events are retried: {}", description, Failures.describe(error));
            }
            reachable = false;
        }
    }

    private void noteReachable() {
        if (!reachable) {
            reachable = true;
            log.info("{}: SQS answers again", description);
        }
    }

    private static void fill(
            AtomicReferenceArray<PublishOutcome> outcomes, List<Entries.Entry> entries, PublishOutcome outcome) {
        for (Entries.Entry e : entries) {
            outcomes.compareAndSet(e.index(), null, outcome);
        }
    }

    /**
     * Stops taking batches, waits a bounded time for the batches being prepared, then closes the client
     * this publisher created (never a given one). Requests still in flight then fail and their batch
     * reports retries. Idempotent.
     */
    @Override
    public void close() {
        if (!threads.close(publishTimeout.plusSeconds(1))) {
            return;
        }
        if (ownClient) {
            client.close();
        }
    }

    /** @return the region, endpoint and kind of credentials (never their values), and the limits */
    @Override
    public String toString() {
        return description;
    }

    /**
     * Configures an {@link SqsPublisher}. Give either a client, or a region (and optionally an endpoint
     * and credentials), not both. Everything is checked at {@link #build()}. The {@link #router(Router)
     * router} gives each event's queue: a name, or a queue URL used as it is.
     */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private SqsAsyncClient client;
        private String region;
        private String endpoint;
        private String accessKeyId;
        private String secretAccessKey;
        private AwsCredentialsProvider credentialsProvider;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(SqsSettings.SETTINGS, SqsSettings.JAVA, "an SQS publisher");

        private Builder() {}

        /**
         * Uses your client (for settings this builder does not offer). It is never closed by the
         * publisher. Configure its API call timeout below the relay's publish timeout yourself.
         *
         * @param client the client; not with region, endpoint, credentials or maxConcurrency
         * @return this builder
         */
        public Builder client(SqsAsyncClient client) {
            this.client = client;
            return this;
        }

        /**
         * @param region the AWS region, for example {@code eu-west-1} (default: the SDK's region chain:
         *     {@code AWS_REGION}, the profile, the instance metadata)
         * @return this builder
         */
        public Builder region(String region) {
            this.region = region;
            return this;
        }

        /**
         * @param endpoint the endpoint of an SQS-compatible server (ElasticMQ, LocalStack) or a VPC
         *     endpoint, for example {@code http://localhost:9324} (default: the region's SQS endpoint)
         * @return this builder
         */
        public Builder endpoint(String endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        /**
         * Static credentials, for an SQS-compatible server or a test. Without them (and without a
         * provider) the SDK's default chain is used: environment, system properties, web identity,
         * profile, container and instance credentials.
         *
         * @param accessKeyId the access key id
         * @param secretAccessKey the secret key; never logged or printed
         * @return this builder
         */
        public Builder credentials(String accessKeyId, String secretAccessKey) {
            this.accessKeyId = accessKeyId;
            this.secretAccessKey = secretAccessKey;
            return this;
        }

        /**
         * @param credentialsProvider any SDK credentials provider (default: the SDK's default chain)
         * @return this builder
         */
        public Builder credentialsProvider(AwsCredentialsProvider credentialsProvider) {
            this.credentialsProvider = credentialsProvider;
            return this;
        }

        /**
         * @param queuePrefix put before the router's queue name (not before a queue URL the router gives,
         *     nor before an event's own destination), for example {@code prod-} (default none); {@code
         *     null} for the default: {@link SqsSettings#QUEUE_PREFIX}
         * @return this builder
         */
        public Builder queuePrefix(String queuePrefix) {
            return set(SqsSettings.QUEUE_PREFIX, queuePrefix);
        }

        /**
         * @param publishTimeout how long a batch waits for SQS's answers, the SDK's retries included
         *     (default 5 s, at most 10 minutes); then every unanswered event is a retry. Keep it below the
         *     relay's publish timeout. {@code null} for the default: {@link SqsSettings#PUBLISH_TIMEOUT}
         * @return this builder
         */
        public Builder publishTimeout(Duration publishTimeout) {
            return set(SqsSettings.PUBLISH_TIMEOUT, publishTimeout);
        }

        /**
         * @param maxMessageBytes the largest message (body and attributes, as SQS counts them) and the
         *     largest request, checked before sending (default 262,144: 256 KiB; at most 1,048,576 for a
         *     queue whose {@code MaximumMessageSize} allows 1 MiB; at least 1,024): {@link
         *     SqsSettings#MAX_MESSAGE_BYTES}
         * @return this builder
         */
        public Builder maxMessageBytes(int maxMessageBytes) {
            return set(SqsSettings.MAX_MESSAGE_BYTES, maxMessageBytes);
        }

        /**
         * @param maxConcurrency the most requests in flight at once, over all queues (default 50, 1 to 1,000):
         *     {@link SqsSettings#MAX_CONCURRENCY}
         * @return this builder
         */
        public Builder maxConcurrency(int maxConcurrency) {
            return set(SqsSettings.MAX_CONCURRENCY, maxConcurrency);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(SqsSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link SqsSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not a setting of an SQS publisher
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * @return the publisher, with its client created (the SDK opens connections on demand)
         * @throws OutboxValidationException naming a setting of {@link SqsSettings} that is out of its
         *     limits, as it was given (in Java, {@code SqsPublisher.Builder.publishTimeout}), or the connection
         *     setting or the router that is missing, out of range or contradicts another
         */
        public SqsPublisher build() {
            SqsSettings settings = SqsSettings.of(given.values(), given.spelling());
            require(router() != null, "SqsPublisher.Builder.router", null, "SqsPublisher.Builder.router is null");
            Duration publishTimeout = settings.publishTimeout();
            if (client != null) {
                require(
                        region == null
                                && endpoint == null
                                && accessKeyId == null
                                && secretAccessKey == null
                                && credentialsProvider == null,
                        "SqsPublisher.Builder.client",
                        null,
                        "SqsPublisher.Builder: give either client or region/endpoint/credentials, not both");
                return new SqsPublisher(this, settings, router(), client, false);
            }
            require(
                    accessKeyId == null || credentialsProvider == null,
                    "SqsPublisher.Builder.credentials",
                    null,
                    "SqsPublisher.Builder: give either credentials or credentialsProvider, not both");
            if (accessKeyId != null || secretAccessKey != null) {
                require(
                        accessKeyId != null
                                && !accessKeyId.isBlank()
                                && secretAccessKey != null
                                && !secretAccessKey.isBlank(),
                        "SqsPublisher.Builder.credentials",
                        null,
                        "SqsPublisher.Builder.credentials needs a non-blank access key id and secret key");
            }
            require(
                    region == null || !region.isBlank(),
                    "SqsPublisher.Builder.region",
                    null,
                    "SqsPublisher.Builder.region must not be blank");
            URI endpointUri = endpoint == null ? null : endpointUri(endpoint);
            Duration connectTimeout =
                    publishTimeout.compareTo(Duration.ofSeconds(2)) < 0 ? publishTimeout : Duration.ofSeconds(2);
            SqsAsyncClientBuilder sqs = SqsAsyncClient.builder()
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                            .maxConcurrency(settings.maxConcurrency())
                            .connectionTimeout(connectTimeout)
                            .connectionAcquisitionTimeout(publishTimeout))
                    .overrideConfiguration(ClientOverrideConfiguration.builder()
                            .apiCallTimeout(publishTimeout)
                            .build());
            if (region != null) {
                sqs.region(Region.of(region));
            }
            if (endpointUri != null) {
                sqs.endpointOverride(endpointUri);
            }
            if (accessKeyId != null) {
                sqs.credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey)));
            } else if (credentialsProvider != null) {
                sqs.credentialsProvider(credentialsProvider);
            }
            SqsAsyncClient created;
            try {
                created = sqs.build();
            } catch (SdkClientException e) {
                throw new OutboxValidationException(
                        "SqsPublisher.Builder.region",
                        null,
                        "SqsPublisher.Builder: the SQS client cannot be created (" + e.getMessage()
                                + "); give a region, or set AWS_REGION");
            }
            return new SqsPublisher(this, settings, router(), created, true);
        }

        private static URI endpointUri(String endpoint) {
            URI uri;
            try {
                uri = new URI(endpoint);
            } catch (URISyntaxException e) {
                throw new OutboxValidationException(
                        "SqsPublisher.Builder.endpoint",
                        null,
                        "SqsPublisher.Builder.endpoint '" + endpoint + "' is not a URI: " + e.getReason());
            }
            require(
                    ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null,
                    "SqsPublisher.Builder.endpoint",
                    null,
                    "SqsPublisher.Builder.endpoint must be an http or https URL with a host, not '" + endpoint + "'");
            require(
                    uri.getUserInfo() == null,
                    "SqsPublisher.Builder.endpoint",
                    null,
                    "SqsPublisher.Builder.endpoint must not hold credentials: use credentials(...)");
            return uri;
        }

        private static void require(boolean condition, String field, String limit, String message) {
            Settings.check(condition, field, limit, message);
        }

        /** @return the settings, with the secret key masked */
        @Override
        public String toString() {
            return "SqsPublisher.Builder[region=" + region + ", endpoint=" + endpoint + ", credentials="
                    + (accessKeyId != null ? "static ****" : credentialsProvider != null ? "given provider" : "default")
                    + ", queuePrefix=" + current(SqsSettings.QUEUE_PREFIX) + ", publishTimeout="
                    + current(SqsSettings.PUBLISH_TIMEOUT) + ", maxMessageBytes="
                    + current(SqsSettings.MAX_MESSAGE_BYTES) + "]";
        }

        /** @return the value given for a setting, or its default: unchecked, for {@link #toString()} */
        private <T> T current(Setting<T> setting) {
            return Objects.requireNonNullElse(given.values().given(setting), setting.defaultValue());
        }
    }
}
