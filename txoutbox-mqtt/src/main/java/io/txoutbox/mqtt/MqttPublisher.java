package io.txoutbox.mqtt;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.internal.transport.Route;
import io.txoutbox.internal.transport.Sends;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.AbstractPublisherBuilder;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttTopic;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to an MQTT 3.1.1 broker at QoS 1 (or 2), one message per event, and reports
 * an event published only once the broker acknowledged it (PUBACK; PUBCOMP at QoS 2).
 *
 * <p>MQTT 3.1.1 has no message headers: by default each message is a {@link MqttEnvelope} (JSON with the
 * headers and the payload, its bytes kept exactly); {@link Format#RAW} sends the payload alone and loses
 * the headers, {@code event-id} included. The broker does not deduplicate: after a relay crash or a
 * timeout the same event may arrive twice, with the same {@code event-id}.
 *
 * <p>Outcomes: acknowledged is {@code PUBLISHED}; an event with no route, a topic that is not a valid
 * topic name (wildcards, empty) or a message beyond MQTT's 256 MiB limit is {@code DEAD}; not connected,
 * a connect that fails, a lost connection and no acknowledgement within the completion timeout are
 * {@code RETRY}. The next batch reconnects.
 *
 * <p>Thread-safe: several relays may share one publisher; a window bounds the unacknowledged messages
 * of all of them ({@link Builder#maxInflight(int)}). {@link #toString()} masks the password.
 */
public final class MqttPublisher implements Publisher {
    private static final Logger log = LoggerFactory.getLogger(MqttPublisher.class);
    /** How a message carries an event. */
    public enum Format {
        /** A JSON {@link MqttEnvelope} with the headers and the payload (exact bytes). The default. */
        ENVELOPE,
        /** The payload bytes alone: consumers see no headers, not even {@code event-id}. */
        RAW
    }

    /** MQTT's largest "remaining length" of a packet: 256 MiB less one byte. */
    static final int MAX_REMAINING_LENGTH = 268_435_455;

    private final MqttSession session;
    private final DeliveryWindow window;
    private final Router router;
    private final Function<ClaimedEvent, byte[]> messages;
    private final int qos;
    private final Duration completionTimeout;
    private final String description;

    private MqttPublisher(Builder b, MqttSettings settings, Router router, MqttSession session, String description) {
        this.session = session;
        this.window = new DeliveryWindow(settings.maxInflight(), session::send);
        String topicPrefix = settings.topicPrefix();
        this.router = topicPrefix.isEmpty() ? router : router.withPrefix(topicPrefix);
        if (b.cloudEvents != null) {
            this.messages = new CloudEventsMessages(b.cloudEvents);
        } else if (settings.format() == Format.RAW) {
            this.messages = ClaimedEvent::payload;
        } else {
            this.messages =
                    event -> MqttEnvelope.encode(MessageHeaders.of(event), event.payload(), event.contentType());
        }
        this.qos = settings.qos();
        this.completionTimeout = settings.completionTimeout();
        this.description = description;
        // Connect now (Paho connects asynchronously), so that the first batch does not wait for the
        // connection set-up; a broker that is down now is reached again by the next batch.
        session.connected().exceptionally(error -> {
            log.warn("{}: cannot connect yet, the first batch tries again: {}", description, String.valueOf(error));
            return null;
        });
    }

    /** @return whether the client is connected (for tests) */
    boolean isConnected() {
        return session.isConnected();
    }

    /**
     * Starts a publisher; {@link Builder#serverUri(String)} is required.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Connects if needed, publishes every event of the batch asynchronously and reports one outcome per
     * event once each is acknowledged or the completion timeout passed (unacknowledged events are then
     * retries).
     *
     * @param batch the claimed events, never empty
     * @return a stage that always completes normally, with one outcome per event in batch order
     * @throws IllegalStateException when the publisher is closed
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        int n = batch.size();
        PublishOutcome[] outcomes = new PublishOutcome[n];
        Delivery[] deliveries = new Delivery[n];
        List<Delivery> toSend = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ClaimedEvent event = batch.get(i);
            Route route = Route.naming(event, router, t -> invalidTopic(event, t));
            if (route.dead() != null) {
                outcomes[i] = route.dead();
                continue;
            }
            String topic = route.destination();
            byte[] message;
            try {
                message = messages.apply(event);
            } catch (RuntimeException e) {
                // The same event maps the same way on every attempt: retrying cannot help.
                outcomes[i] = PublishOutcome.dead(
                        "the MQTT message of event " + event.id() + " could not be built: " + e.getMessage());
                continue;
            }
            long length = 2L + topic.getBytes(StandardCharsets.UTF_8).length + 2 + message.length;
            if (length > MAX_REMAINING_LENGTH) {
                outcomes[i] = PublishOutcome.dead("the MQTT message of event " + event.id() + " is " + message.length
                        + " bytes; MQTT packets are limited to " + MAX_REMAINING_LENGTH + " bytes");
                continue;
            }
            deliveries[i] = new Delivery(topic, message);
            toSend.add(deliveries[i]);
        }
        if (toSend.isEmpty()) {
            return CompletableFuture.completedFuture(Arrays.asList(outcomes));
        }
        List<CompletableFuture<Void>> acks = new ArrayList<>(toSend.size());
        for (Delivery d : toSend) {
            acks.add(d.ack);
        }
        Sends.onceConnected(session.connected(), acks, connected -> window.submit(toSend));
        return Sends.settled(acks, completionTimeout).thenApply(done -> collect(deliveries, outcomes));
    }

    private List<PublishOutcome> collect(Delivery[] deliveries, PublishOutcome[] outcomes) {
        for (int i = 0; i < outcomes.length; i++) {
            Delivery d = deliveries[i];
            if (d == null) {
                continue;
            }
            if (d.ack.completeExceptionally(new TimeoutException("no acknowledgement"))) {
                // Given up: a message not yet sent is skipped; one sent frees its slot now, and if the broker
                // got it after all, the retry is a duplicate with the same event-id.
                window.release(d);
                outcomes[i] = PublishOutcome.retry("no acknowledgement for topic '" + d.topic + "' within "
                        + completionTimeout.toMillis() + " ms from " + session.target());
                continue;
            }
            try {
                d.ack.join();
                outcomes[i] = PublishOutcome.PUBLISHED;
            } catch (CompletionException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                outcomes[i] = PublishOutcome.retry(
                        "publishing to topic '" + d.topic + "' at " + session.target() + " failed: " + cause);
            }
        }
        return Arrays.asList(outcomes);
    }

    /** @return why the event's topic is not a valid MQTT topic name, or {@code null} when it is */
    private static String invalidTopic(ClaimedEvent event, String topic) {
        String why;
        if (topic == null || topic.isEmpty()) {
            why = "the router gave none";
        } else {
            try {
                MqttTopic.validate(topic, false);
                return null;
            } catch (IllegalArgumentException e) {
                why = "'" + topic + "': " + e.getMessage();
            }
        }
        return "event " + event.id() + " has no valid MQTT topic: " + why;
    }

    /** Disconnects and closes the client this publisher created, with bounded waits. Idempotent. */
    @Override
    public void close() {
        session.close();
    }

    @Override
    public String toString() {
        return description;
    }

    /**
     * Builds an {@link MqttPublisher}. Every setting is checked at {@link #build()}, which throws
     * {@link OutboxValidationException} naming the setting and the value. Not thread-safe.
     */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private String serverUri;
        private String username;
        private char[] password;
        private CloudEventsMapping cloudEvents;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(MqttSettings.SETTINGS, MqttSettings.JAVA, "an MQTT publisher");

        private Builder() {}

        /**
         * @param serverUri the broker, for example {@code tcp://localhost:1883} or {@code ssl://broker:8883}
         * @return this builder
         */
        public Builder serverUri(String serverUri) {
            this.serverUri = serverUri;
            return this;
        }

        /**
         * @param clientId the MQTT client id (default {@code txoutbox} and 12 random hex digits). Two
         *     connections with one id take over from each other: give each publisher its own. 1 to 65,535
         *     bytes in UTF-8; {@code null} for the default: {@link MqttSettings#CLIENT_ID}
         * @return this builder
         */
        public Builder clientId(String clientId) {
            return set(MqttSettings.CLIENT_ID, clientId);
        }

        /**
         * @param username the user name to connect with
         * @param password the password (copied; masked in {@code toString}), or {@code null} for none
         * @return this builder
         */
        public Builder credentials(String username, char[] password) {
            this.username = username;
            this.password = password == null ? null : password.clone();
            return this;
        }

        /**
         * @param topicPrefix put before every topic the router gives, for example {@code outbox/} (default
         *     none); an event's own destination is used as it is. No wildcards ({@code +}, {@code #}) or
         *     NUL; {@code null} for the default: {@link MqttSettings#TOPIC_PREFIX}
         * @return this builder
         */
        public Builder topicPrefix(String topicPrefix) {
            return set(MqttSettings.TOPIC_PREFIX, topicPrefix);
        }

        /**
         * @param qos 1 (default: PUBACK confirms the broker has the message) or 2 (exactly-once handshake
         *     with the broker, confirmed by PUBCOMP: slower, and it does not stop the outbox's own
         *     duplicates). QoS 0 is rejected: nothing would confirm delivery. See {@link MqttSettings#QOS}.
         * @return this builder
         */
        public Builder qos(int qos) {
            return set(MqttSettings.QOS, qos);
        }

        /**
         * @param completionTimeout how long a batch waits for its acknowledgements, connecting included;
         *     then the unacknowledged events are retries (default 5 s). Keep it below the relay's publish
         *     timeout. Positive; {@code null} for the default: {@link MqttSettings#COMPLETION_TIMEOUT}
         * @return this builder
         */
        public Builder completionTimeout(Duration completionTimeout) {
            return set(MqttSettings.COMPLETION_TIMEOUT, completionTimeout);
        }

        /**
         * @param keepAlive the MQTT keep-alive interval, whole seconds, at least 1 s (default 30 s): how
         *     soon a silently dead connection is noticed and replaced; at most 65,535 s. {@code null} for
         *     the default: {@link MqttSettings#KEEP_ALIVE}
         * @return this builder
         */
        public Builder keepAlive(Duration keepAlive) {
            return set(MqttSettings.KEEP_ALIVE, keepAlive);
        }

        /**
         * @param format {@link Format#ENVELOPE} (default) or {@link Format#RAW}; {@code null} for the default:
         *     {@link MqttSettings#FORMAT}
         * @return this builder
         */
        public Builder format(Format format) {
            return set(MqttSettings.FORMAT, format);
        }

        /**
         * Sends every event as a CloudEvent in the MQTT binding's structured content mode (MQTT 3.1.1 has
         * no headers, so binary mode is not possible): the message is one JSON object in the JSON event
         * format ({@code application/cloudevents+json}) with {@code id} = event id, {@code type}, {@code
         * source}, {@code subject} = aggregate id, {@code time}, {@code specversion}, {@code
         * datacontenttype}, the {@code eventversion} extension, the payload as {@code data} (JSON
         * embedded, text as a string, other bytes as {@code data_base64}), and the other headers as
         * extension attributes ({@code traceparent}, {@code correlationid}...). Instead of {@link
         * #format}'s envelope; not with {@link Format#RAW}. Needs {@code io.txoutbox:txoutbox-cloudevents}
         * on the class path. Default: off.
         *
         * @param mapping the CloudEvents mapping (its {@code source} above all)
         * @return this builder
         */
        public Builder cloudEvents(CloudEventsMapping mapping) {
            this.cloudEvents = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /**
         * @param maxInflight the most messages unacknowledged at once, across every batch (1 to 65,535,
         *     default 1,000); a larger batch goes out as acknowledgements come back. See {@link
         *     MqttSettings#MAX_INFLIGHT}.
         * @return this builder
         */
        public Builder maxInflight(int maxInflight) {
            return set(MqttSettings.MAX_INFLIGHT, maxInflight);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(MqttSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link MqttSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not a setting of an MQTT publisher
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Checks the settings, creates the client and starts connecting (asynchronously); a broker that
         * is down then makes the first batch a retry, and that batch connects again.
         *
         * @return the publisher
         * @throws OutboxValidationException naming a setting of {@link MqttSettings} that is out of its
         *     limits, as it was given (in Java, {@code MqttPublisher.Builder.qos}), or the server URI, the
         *     credentials or the router when missing, unusable or contradicting another
         */
        public MqttPublisher build() {
            if (serverUri == null || serverUri.isBlank()) {
                throw invalid("serverUri", null, "MqttPublisher.Builder.serverUri is missing");
            }
            MqttSettings settings = MqttSettings.of(given.values(), given.spelling());
            int qos = settings.qos();
            Duration completionTimeout = settings.completionTimeout();
            Format format = settings.format();
            int maxInflight = settings.maxInflight();
            String clientId = settings.clientId();
            String id = clientId != null
                    ? clientId
                    : "txoutbox"
                            + HexFormat.of()
                                    .toHexDigits(ThreadLocalRandom.current().nextLong())
                                    .substring(4);
            if (password != null && username == null) {
                throw invalid(
                        "credentials",
                        null,
                        "MqttPublisher.Builder.credentials has a password but no user name; MQTT 3.1.1 does not"
                                + " allow that");
            }
            if (router() == null) {
                throw invalid("router", null, "MqttPublisher.Builder.router is missing");
            }
            if (cloudEvents != null && format == Format.RAW) {
                throw invalid(
                        "cloudEvents",
                        null,
                        "MqttPublisher.Builder.cloudEvents and format RAW contradict each other: a CloudEvent"
                                + " message replaces the envelope, RAW sends the payload alone; choose one");
            }
            MqttConnectOptions options = new MqttConnectOptions();
            options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
            // The outbox table is the durable store: a clean session keeps no broker state to go stale, and
            // anything unacknowledged when a connection drops is retried from the table.
            options.setCleanSession(true);
            options.setAutomaticReconnect(false);
            options.setMaxInflight(maxInflight);
            options.setKeepAliveInterval((int) settings.keepAlive().getSeconds());
            options.setConnectionTimeout((int) Math.max(1, (completionTimeout.toMillis() + 999) / 1000));
            if (username != null) {
                options.setUserName(username);
            }
            if (password != null) {
                options.setPassword(password.clone());
            }
            MqttAsyncClient client;
            try {
                client = new MqttAsyncClient(serverUri, id, new MemoryPersistence());
            } catch (IllegalArgumentException | MqttException e) {
                throw invalid(
                        "serverUri",
                        null,
                        "MqttPublisher.Builder.serverUri '" + mask(serverUri) + "' is not usable: " + e.getMessage()
                                + " (expected tcp://host:port, ssl://host:port, ws://... or wss://...)");
            }
            String target = mask(serverUri);
            String description = "MqttPublisher[" + target + ", clientId=" + id
                    + (username == null
                            ? ""
                            : ", user=" + username + ", password=" + (password == null ? "none" : "***"))
                    + ", qos=" + qos + ", format=" + (cloudEvents != null ? "CLOUDEVENTS" : format)
                    + ", completionTimeout=" + completionTimeout.toMillis()
                    + " ms, maxInflight=" + maxInflight + "]";
            return new MqttPublisher(
                    this, settings, router(), new MqttSession(client, options, qos, target), description);
        }

        /** @return the URI with any user information replaced by {@code ***} */
        static String mask(String uri) {
            int scheme = uri.indexOf("://");
            int start = scheme < 0 ? 0 : scheme + 3;
            int at = uri.lastIndexOf('@');
            return at < start ? uri : uri.substring(0, start) + "***" + uri.substring(at);
        }

        private static OutboxValidationException invalid(String setting, String limit, String message) {
            return new OutboxValidationException(
                    "MqttPublisher.Builder." + setting, limit, Objects.requireNonNull(message));
        }
    }
}
