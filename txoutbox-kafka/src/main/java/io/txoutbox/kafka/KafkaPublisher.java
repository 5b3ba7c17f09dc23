package io.txoutbox.kafka;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.internal.transport.ClassPath;
import io.txoutbox.internal.transport.PublisherThreads;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.AbstractPublisherBuilder;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to Kafka and reports each one published only after the broker acknowledged
 * it to all in-sync replicas.
 *
 * <ul>
 *   <li>the topic is the event's own destination, or else the {@link Router}'s route (by aggregate
 *       type unless told otherwise), with an optional prefix;
 *   <li>the record key is the aggregate id (UTF-8), so the events of one aggregate share a partition;
 *       the value is the payload as appended; the headers are {@link MessageHeaders#of} (UTF-8);
 *   <li>the producer is idempotent ({@code acks=all}, {@code enable.idempotence=true}, at most 5
 *       requests in flight), so the order of one partition is kept across the producer's own retries;
 *   <li>a batch is sent asynchronously on the publisher's own thread, flushed once, and its stage
 *       completes with one outcome per event once every send's callback has answered.
 * </ul>
 *
 * <pre>{@code
 * Publisher kafka = KafkaPublisher.builder()
 *         .bootstrapServers("broker-1:9092,broker-2:9092")
 *         .build();
 * }</pre>
 *
 * <p>Failures that can never succeed as they are (a record too large, an invalid topic, a refused
 * authorization, a record the broker rejects) make the event dead with the reason; everything transient,
 * timed out or unknown makes it retry. When the producer itself breaks (fenced, out of sequence,
 * closed, not authenticated) the rest of the batch retries, and a producer this publisher created is
 * replaced before the next batch; a producer you gave is never replaced nor closed.
 *
 * <p>Thread-safe: several relays may share one publisher; its batches are sent one after the other.
 */
public final class KafkaPublisher implements Publisher {
    private static final Logger log = LoggerFactory.getLogger(KafkaPublisher.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Router router;
    private final String bootstrapServers;
    private final Map<String, Object> userProperties;
    private final Duration requestTimeout;
    private final Duration deliveryTimeout;
    private final Duration confirmWait;
    private final boolean ownsProducer;
    private final Supplier<Producer<byte[], byte[]>> factory;
    private final ExecutorService sender;
    private final String name;
    private final RecordMapping records;

    // Touched by the sender thread, and by close() only after the sender stopped.
    private volatile Producer<byte[], byte[]> producer;
    private volatile String brokenBecause;
    private volatile boolean closed;

    private KafkaPublisher(Builder b, KafkaSettings checked, Router router, ProducerSettings.Resolved settings) {
        this.name = "txoutbox-kafka-" + INSTANCES.incrementAndGet();
        String topicPrefix = checked.topicPrefix();
        this.router = topicPrefix == null ? router : router.withPrefix(topicPrefix);
        this.userProperties = Map.copyOf(b.properties);
        if (b.cloudEvents == null) {
            this.records = KafkaPublisher::record;
        } else {
            this.records = new CloudEventsRecords(b.cloudEvents);
        }
        this.ownsProducer = b.producer == null;
        if (ownsProducer) {
            this.bootstrapServers = settings.bootstrapServers();
            this.requestTimeout = settings.requestTimeout();
            this.deliveryTimeout = settings.deliveryTimeout();
            Map<String, Object> config = new LinkedHashMap<>(settings.config());
            config.putIfAbsent("client.id", name);
            Map<String, Object> frozen = Map.copyOf(config);
            this.factory = () -> new KafkaProducer<>(frozen, new ByteArraySerializer(), new ByteArraySerializer());
            try {
                this.producer = factory.get();
            } catch (KafkaException e) {
                throw new OutboxValidationException(
                        "KafkaPublisher.producerProperties",
                        null,
                        "Kafka rejected the producer configuration of KafkaPublisher: " + e.getMessage());
            }
            // The sends can take up to the delivery timeout; then callbacks are due at once.
            this.confirmWait = deliveryTimeout.plus(requestTimeout).plusSeconds(5);
        } else {
            // Unknown: the caller configured the producer. Kafka's own defaults, for the messages only.
            this.bootstrapServers = null;
            this.requestTimeout = Duration.ofSeconds(30);
            this.deliveryTimeout = Duration.ofMinutes(2);
            Producer<byte[], byte[]> given = b.producer;
            this.factory = () -> given;
            this.producer = given;
            this.confirmWait = Duration.ofMinutes(3);
        }
        this.sender = new ThreadPoolExecutor(
                0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> PublisherThreads.daemon(r, name));
    }

    /** @return a builder; {@link Builder#bootstrapServers} or {@link Builder#producer} is required */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Sends the batch on the publisher's thread and returns at once. The stage completes with one
     * outcome per event, in batch order, after each send's callback answered (or after the delivery
     * timeout and a margin, which makes the unanswered events retry). After {@link #close()} the stage
     * fails, which makes the relay retry the batch.
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        CompletableFuture<List<PublishOutcome>> result = new CompletableFuture<>();
        List<ClaimedEvent> events = List.copyOf(batch);
        if (closed) {
            result.completeExceptionally(new IllegalStateException(this + " is closed"));
            return result;
        }
        try {
            sender.execute(() -> {
                try {
                    result.complete(sendBatch(events));
                } catch (RuntimeException | Error e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException(this + " is closed", e));
        }
        return result;
    }

    private List<PublishOutcome> sendBatch(List<ClaimedEvent> events) {
        Producer<byte[], byte[]> p;
        try {
            p = producer();
        } catch (KafkaException e) {
            return allRetry(events.size(), "Kafka producer could not be recreated: " + e);
        }
        List<CompletableFuture<PublishOutcome>> slots = new ArrayList<>(events.size());
        String stopped = null;
        for (ClaimedEvent event : events) {
            CompletableFuture<PublishOutcome> slot = new CompletableFuture<>();
            slots.add(slot);
            if (stopped != null) {
                slot.complete(PublishOutcome.retry(stopped));
                continue;
            }
            String topic;
            try {
                topic = router.destinationOf(event);
            } catch (RuntimeException e) {
                slot.complete(PublishOutcome.dead("the Kafka router failed for event type '" + event.eventType()
                        + "' (aggregate type '" + event.aggregateType() + "'): " + e));
                continue;
            }
            if (topic == null || topic.isBlank()) {
                slot.complete(PublishOutcome.dead("the Kafka router gave no topic for event type '" + event.eventType()
                        + "' (aggregate type '" + event.aggregateType() + "')"));
                continue;
            }
            int bytes = event.payload().length;
            ProducerRecord<byte[], byte[]> record;
            try {
                record = records.record(event, topic);
            } catch (RuntimeException e) {
                // The same event maps the same way on every attempt: retrying cannot help.
                slot.complete(PublishOutcome.dead("the Kafka record of event type '" + event.eventType()
                        + "' could not be built: " + e.getMessage()));
                continue;
            }
            try {
                p.send(record, (metadata, error) -> {
                    if (error == null) {
                        slot.complete(PublishOutcome.PUBLISHED);
                    } else {
                        slot.complete(failed(error, topic, bytes));
                    }
                });
            } catch (RuntimeException e) {
                slot.complete(failed(e, topic, bytes));
            }
            // A failure reported before send() returned (no metadata in time, a full buffer, a broken
            // producer) would only repeat for the rest: retry it without waiting again per event.
            if (slot.isDone() && slot.join().outcome() == Outcome.RETRY) {
                stopped = "not sent: an earlier event of this batch failed before reaching Kafka ("
                        + slot.join().reason() + ")";
            }
        }
        try {
            p.flush();
        } catch (RuntimeException e) {
            markBroken("flush failed: " + e);
        }
        return collect(slots);
    }

    private List<PublishOutcome> collect(List<CompletableFuture<PublishOutcome>> slots) {
        CompletableFuture<Void> all = CompletableFuture.allOf(slots.toArray(new CompletableFuture<?>[0]));
        try {
            all.get(confirmWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Unanswered slots are filled below.
        }
        List<PublishOutcome> outcomes = new ArrayList<>(slots.size());
        for (CompletableFuture<PublishOutcome> slot : slots) {
            outcomes.add(
                    slot.getNow(PublishOutcome.retry("Kafka did not answer within " + confirmWait.toMillis() + " ms")));
        }
        return outcomes;
    }

    private PublishOutcome failed(Throwable error, String topic, int bytes) {
        KafkaErrors.Failure failure = KafkaErrors.classify(error, topic, bytes);
        if (failure.fatal()) {
            markBroken(failure.outcome().reason());
        }
        return failure.outcome();
    }

    private void markBroken(String reason) {
        if (brokenBecause == null) {
            brokenBecause = reason;
        }
    }

    private Producer<byte[], byte[]> producer() {
        String broken = brokenBecause;
        if (broken == null) {
            return producer;
        }
        brokenBecause = null;
        if (!ownsProducer) {
            log.warn(
                    "{}: the Kafka producer you gave failed ({}); it is yours, so it is neither closed nor replaced",
                    name,
                    broken);
            return producer;
        }
        log.warn("{}: the Kafka producer failed ({}); replacing it for the next batch", name, broken);
        closeQuietly(producer, Duration.ZERO);
        producer = factory.get();
        return producer;
    }

    private static ProducerRecord<byte[], byte[]> record(ClaimedEvent event, String topic) {
        RecordHeaders headers = new RecordHeaders();
        for (Map.Entry<String, String> h : MessageHeaders.of(event).entrySet()) {
            headers.add(h.getKey(), h.getValue().getBytes(StandardCharsets.UTF_8));
        }
        byte[] key = event.aggregateId().getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(topic, null, null, key, event.payload(), headers);
    }

    /** Builds the record of one event: the plain mapping, or the CloudEvents binding when opted in. */
    interface RecordMapping {
        ProducerRecord<byte[], byte[]> record(ClaimedEvent event, String topic);
    }

    private static List<PublishOutcome> allRetry(int n, String reason) {
        List<PublishOutcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            outcomes.add(PublishOutcome.retry(reason));
        }
        return outcomes;
    }

    /** @return the producer in use now (tests break it to prove the publisher recovers) */
    Producer<byte[], byte[]> currentProducer() {
        return producer;
    }

    /**
     * Waits for the batch in flight (up to the delivery timeout and a margin), fails the batches not
     * yet started (the relay retries them), and closes the producer if this publisher created it. A
     * producer you gave stays open. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        PublisherThreads.stop(sender, confirmWait);
        if (ownsProducer) {
            closeQuietly(producer, requestTimeout);
        }
    }

    private void closeQuietly(Producer<byte[], byte[]> p, Duration timeout) {
        try {
            p.close(timeout);
        } catch (RuntimeException e) {
            log.warn("{}: closing the Kafka producer failed: {}", name, e.toString());
        }
    }

    /** Names the settings; never prints property values, which may hold credentials. */
    @Override
    public String toString() {
        return "KafkaPublisher[" + name + ", "
                + (ownsProducer
                        ? "bootstrapServers=" + bootstrapServers + ", requestTimeout=" + requestTimeout.toMillis()
                                + " ms, deliveryTimeout=" + deliveryTimeout.toMillis() + " ms, producerProperties="
                                + userProperties.keySet()
                        : "producer given by the caller")
                + "]";
    }

    /** Builds a {@link KafkaPublisher}; every setting is checked at {@link #build()}. */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private String bootstrapServers;
        private final Map<String, Object> properties = new LinkedHashMap<>();
        private Producer<byte[], byte[]> producer;
        private CloudEventsMapping cloudEvents;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(KafkaSettings.SETTINGS, KafkaSettings.JAVA, "a Kafka publisher");

        private Builder() {}

        /**
         * @param bootstrapServers {@code host:port[,host:port...]}: where the publisher's own producer
         *     finds the cluster
         * @return this builder
         */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
            return this;
        }

        /**
         * @param router picks the topic of an event that names no destination of its own (default
         *     {@link Router#BY_AGGREGATE_TYPE})
         * @return this builder
         * @throws NullPointerException when {@code router} is {@code null}
         */
        @Override
        public Builder router(Router router) {
            return super.router(Objects.requireNonNull(router, "router"));
        }

        /**
         * @param topicPrefix put before every routed topic, for example {@code outbox.}; an event's own
         *     destination is used as it is; not blank. {@code null} for the default, none: {@link
         *     KafkaSettings#TOPIC_PREFIX}
         * @return this builder
         */
        public Builder topicPrefix(String topicPrefix) {
            return set(KafkaSettings.TOPIC_PREFIX, topicPrefix);
        }

        /**
         * Adds one producer setting (security, compression, linger, batch size, client id...). Settings
         * that contradict the idempotent producer are rejected at {@link #build()}.
         *
         * @param name a Kafka producer setting, for example {@code compression.type}
         * @param value its value
         * @return this builder
         */
        public Builder producerProperty(String name, Object value) {
            if (name == null || name.isBlank() || value == null) {
                throw new OutboxValidationException(
                        "KafkaPublisher.producerProperties",
                        null,
                        "KafkaPublisher.producerProperty needs a name and a value, got " + name + "="
                                + (value == null ? "null" : "(a value)"));
            }
            properties.put(name.trim(), value);
            return this;
        }

        /**
         * @param properties producer settings, as {@link #producerProperty} each
         * @return this builder
         */
        public Builder producerProperties(Map<String, ?> properties) {
            Objects.requireNonNull(properties, "properties").forEach(this::producerProperty);
            return this;
        }

        /**
         * @param requestTimeout how long the producer waits for one answer of the broker
         *     ({@code request.timeout.ms}; default 5 s, or the producer properties' {@code request.timeout.ms};
         *     positive, at most {@link Integer#MAX_VALUE} ms). {@code null} for the default: {@link
         *     KafkaSettings#REQUEST_TIMEOUT}
         * @return this builder
         */
        public Builder requestTimeout(Duration requestTimeout) {
            return set(KafkaSettings.REQUEST_TIMEOUT, requestTimeout);
        }

        /**
         * @param deliveryTimeout how long a record may take in all, retries included, before its event is
         *     reported for retry ({@code delivery.timeout.ms}, also the bound of a blocked send; default
         *     8 s, or the producer properties' {@code delivery.timeout.ms}; positive, at most {@link
         *     Integer#MAX_VALUE} ms, and at least the request timeout plus {@code linger.ms}). Keep it below
         *     the relay's publish timeout so that every event gets its own outcome. {@code null} for the
         *     default: {@link KafkaSettings#DELIVERY_TIMEOUT}
         * @return this builder
         */
        public Builder deliveryTimeout(Duration deliveryTimeout) {
            return set(KafkaSettings.DELIVERY_TIMEOUT, deliveryTimeout);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(KafkaSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link KafkaSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not a setting of a Kafka publisher
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Uses your producer instead of creating one. You keep it: the publisher never closes nor
         * replaces it, even after a fatal error. Configure it idempotent ({@code acks=all},
         * {@code enable.idempotence=true}) yourself; the publisher cannot check it. Excludes
         * {@link #bootstrapServers}, {@link #producerProperty}, and the timeouts.
         *
         * @param producer a producer of byte keys and values
         * @return this builder
         */
        public Builder producer(Producer<byte[], byte[]> producer) {
            this.producer = Objects.requireNonNull(producer, "producer");
            return this;
        }

        /**
         * Sends every event as a CloudEvent in the Kafka binding's binary content mode: the attributes as
         * {@code ce_} headers ({@code ce_id} = event id, {@code ce_type}, {@code ce_source}, {@code
         * ce_subject} = aggregate id, {@code ce_time}, {@code ce_specversion}, {@code ce_eventversion}),
         * {@code datacontenttype} as {@code content-type}, the payload unchanged as the value and the
         * aggregate id as the key; the headers that are not attributes stay as they are. Needs {@code
         * io.txoutbox:txoutbox-cloudevents} and {@code io.cloudevents:cloudevents-kafka} on the class path.
         * Default: off, the plain headers of {@link MessageHeaders}.
         *
         * @param mapping the CloudEvents mapping (its {@code source} above all)
         * @return this builder
         */
        public Builder cloudEvents(CloudEventsMapping mapping) {
            this.cloudEvents = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /**
         * @return the publisher, with its producer created (its I/O thread connects when the first batch
         *     needs a topic's metadata; {@code publish()} returns at once and sends on a thread of its own)
         * @throws OutboxValidationException when a setting is missing, out of range or contradicts the
         *     idempotent producer, naming the setting and the value (a setting of {@link KafkaSettings} as it
         *     was given: in Java, {@code KafkaPublisher.requestTimeout})
         */
        public KafkaPublisher build() {
            if (cloudEvents != null
                    && !ClassPath.has("io.cloudevents.kafka.KafkaMessageFactory", KafkaPublisher.class)) {
                throw invalid(
                        "KafkaPublisher.cloudEvents",
                        "KafkaPublisher.cloudEvents needs io.cloudevents:cloudevents-kafka on the class path");
            }
            KafkaSettings settings = KafkaSettings.of(given.values(), given.spelling());
            if (producer != null) {
                if (bootstrapServers != null
                        || !properties.isEmpty()
                        || given.values().isSet(KafkaSettings.REQUEST_TIMEOUT)
                        || given.values().isSet(KafkaSettings.DELIVERY_TIMEOUT)) {
                    throw invalid(
                            "KafkaPublisher.producer",
                            "KafkaPublisher.producer is given, so bootstrapServers, producerProperties,"
                                    + " requestTimeout and deliveryTimeout cannot be set: configure your producer");
                }
                return new KafkaPublisher(this, settings, router(), null);
            }
            return new KafkaPublisher(this, settings, router(), ProducerSettings.resolve(this, settings));
        }

        String bootstrapServers() {
            return bootstrapServers;
        }

        Map<String, Object> properties() {
            return properties;
        }

        private static OutboxValidationException invalid(String field, String message) {
            return new OutboxValidationException(field, null, message);
        }
    }
}
