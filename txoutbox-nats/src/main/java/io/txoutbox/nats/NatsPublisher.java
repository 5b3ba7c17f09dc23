package io.txoutbox.nats;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.internal.transport.Errors;
import io.txoutbox.internal.transport.PreparedBatch;
import io.txoutbox.internal.transport.PublisherThreads;
import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.AbstractPublisherBuilder;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to NATS JetStream, one subject per route. Build it with {@link #builder()}.
 *
 * <p>What it promises, per event of a batch:
 *
 * <ul>
 *   <li>{@code PUBLISHED} only after a stream acknowledged the message with a PubAck, including a
 *       PubAck marked duplicate: every message carries {@code Nats-Msg-Id} = the event id, so a
 *       re-publish within the stream's duplicate window is stored once.
 *   <li>{@code DEAD} when it can never succeed as it is: a subject NATS cannot publish to (empty,
 *       whitespace, a wildcard) or a message larger than the server's {@code max_payload}.
 *   <li>{@code RETRY} for everything else: no stream listens on the subject (a stream may be created,
 *       or restored after a server restart), no PubAck within {@code publishTimeout}, a lost
 *       connection, a stream error.
 * </ul>
 *
 * <p>Headers are {@link MessageHeaders}. With a server URL or {@link Options} the publisher starts
 * connecting when it is built (on a thread of its own: a server that is down then is reached again by
 * the next batch), relies on the client's reconnection afterwards, and closes that connection in
 * {@link #close()}; a {@link Connection} you give is never closed. Thread-safe.
 */
public final class NatsPublisher implements Publisher {
    private static final Logger log = LoggerFactory.getLogger(NatsPublisher.class);

    private final Options options;
    private final Connection given;
    private final JetStreamOptions jetStreamOptions;
    private final Router router;
    private final Duration publishTimeout;
    private final String publishTimeoutSetting;
    private final String description;
    private final PublisherThreads threads;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection own; // guarded by lock
    private JetStream jetStream; // guarded by lock
    private volatile boolean reachable = true;
    private final Function<ClaimedEvent, Map<String, String>> messageHeaders;

    private NatsPublisher(Builder b, Router router, Options options, NatsSettings settings) {
        this.options = options;
        this.given = b.connection;
        this.jetStreamOptions = b.jetStreamOptions;
        String subjectPrefix = settings.subjectPrefix();
        this.router = subjectPrefix.isEmpty() ? router : router.withPrefix(subjectPrefix);
        this.publishTimeout = settings.publishTimeout();
        this.publishTimeoutSetting = settings.spelling().of(NatsSettings.PUBLISH_TIMEOUT);
        if (b.cloudEvents == null) {
            this.messageHeaders = MessageHeaders::of;
        } else {
            this.messageHeaders = new CloudEventsHeaders(b.cloudEvents);
        }
        List<URI> servers = given != null ? given.getOptions().getServers() : options.getServers();
        this.description =
                "NatsPublisher[" + servers.stream().map(NatsPublisher::masked).collect(Collectors.joining(","))
                        + (given != null ? " (given connection)" : "")
                        + (subjectPrefix.isEmpty() ? "" : ", subjectPrefix=" + subjectPrefix)
                        + ", publishTimeout=" + publishTimeout.toMillis() + " ms]";
        this.threads = new PublisherThreads("nats", description);
        if (given == null) {
            // Connect now, on a thread of ours, so that the first batch does not wait for the connection
            // set-up; a server that is down now is reached again by the next batch.
            threads.execute(this::connectEarly);
        }
    }

    private void connectEarly() {
        try {
            jetStream();
        } catch (IOException | RuntimeException e) {
            reachable = false;
            log.warn("{}: cannot connect yet, the first batch tries again: {}", description, Errors.describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return whether this publisher's own connection is open (for tests) */
    boolean isConnected() {
        lock.lock();
        try {
            return own != null && own.getStatus() == Connection.Status.CONNECTED;
        } finally {
            lock.unlock();
        }
    }

    /** @return a builder; give {@link Builder#server(String)}, {@link Builder#options} or a connection */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Publishes the batch asynchronously on a thread of this publisher and completes when every event
     * has its PubAck, its failure, or the publish timeout passed (then the unacknowledged ones are
     * retries). It never completes exceptionally for a broker failure: those are per-event outcomes.
     *
     * @param batch the claimed events, never empty
     * @return one outcome per event, in batch order; a failed stage only if this publisher is closed
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        return threads.submit(() -> publishNow(batch));
    }

    private List<PublishOutcome> publishNow(List<ClaimedEvent> batch) {
        JetStream js;
        try {
            js = jetStream();
        } catch (IOException | RuntimeException e) {
            String why = Errors.describe(e);
            if (reachable) {
                log.warn("{}: cannot connect, retrying on the next batch: {}", description, why);
            }
            reachable = false;
            return Collections.nCopies(batch.size(), PublishOutcome.retry("cannot reach NATS: " + why));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Collections.nCopies(batch.size(), PublishOutcome.retry("interrupted while connecting to NATS"));
        }
        long deadline = System.nanoTime() + publishTimeout.toNanos();
        PreparedBatch<Headers> prepared =
                PreparedBatch.prepare(batch, router, Subjects::problem, this::headers, "the NATS message");
        List<CompletableFuture<PublishAck>> acks = new ArrayList<>(Collections.nCopies(batch.size(), null));
        for (int i : prepared.ready()) {
            ClaimedEvent event = prepared.event(i);
            String subject = prepared.destination(i);
            try {
                acks.set(i, js.publishAsync(subject, prepared.message(i), event.payload(), publishOptions(event)));
            } catch (IllegalArgumentException e) {
                // The client refuses what the server never accepts: a payload over max_payload, a bad header.
                prepared.set(i, PublishOutcome.dead("NATS refused the message: " + e.getMessage()));
            } catch (RuntimeException e) {
                prepared.set(i, Failures.of(e, subject));
            }
        }
        int sent = 0;
        int unanswered = 0;
        for (int i = 0; i < batch.size(); i++) {
            CompletableFuture<PublishAck> ack = acks.get(i);
            if (ack == null) {
                continue;
            }
            sent++;
            try {
                ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                prepared.set(i, PublishOutcome.PUBLISHED); // a duplicate PubAck too: the stream holds the message
            } catch (TimeoutException e) {
                unanswered++;
                prepared.set(
                        i,
                        PublishOutcome.retry("no PubAck from JetStream within " + publishTimeout.toMillis()
                                + " ms for subject " + prepared.destination(i)
                                + " (" + publishTimeoutSetting + ")"));
            } catch (ExecutionException e) {
                prepared.set(i, Failures.of(e.getCause(), prepared.destination(i)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                prepared.fillMissing(PublishOutcome.retry("interrupted while waiting for JetStream's PubAcks"));
                break;
            }
        }
        if (sent > 0 && unanswered == sent) {
            replaceIfSilent(js);
        }
        reachable = true;
        return prepared.outcomes();
    }

    /**
     * A connection that says it is connected yet answered none of a batch's publishes may be stuck
     * (a client that stopped writing after a reconnect has been seen): replace our own so that the
     * next batch starts afresh. While the client is still reconnecting it is left to do so; a given
     * connection is the user's to manage.
     */
    private void replaceIfSilent(JetStream silent) {
        Connection stale;
        lock.lock();
        try {
            if (own == null || jetStream != silent || own.getStatus() != Connection.Status.CONNECTED) {
                return;
            }
            stale = own;
            own = null;
            jetStream = null;
        } finally {
            lock.unlock();
        }
        log.warn("{}: no PubAck for a whole batch on a connected client: opening a new connection", description);
        try {
            stale.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private PublishOptions publishOptions(ClaimedEvent event) {
        return PublishOptions.builder()
                .messageId(event.id().toString())
                .streamTimeout(publishTimeout)
                .build();
    }

    private Headers headers(ClaimedEvent event) {
        Headers headers = new Headers();
        for (Map.Entry<String, String> h : messageHeaders.apply(event).entrySet()) {
            headers.put(h.getKey(), h.getValue());
        }
        return headers;
    }

    private JetStream jetStream() throws IOException, InterruptedException {
        lock.lock();
        try {
            if (threads.isClosed()) {
                throw threads.closedFailure(null);
            }
            if (given != null) {
                if (given.getStatus() == Connection.Status.CLOSED) {
                    throw new IllegalStateException("the given NATS connection is closed");
                }
                if (jetStream == null) {
                    jetStream = given.jetStream(jetStreamOptions);
                }
                return jetStream;
            }
            if (own == null || own.getStatus() == Connection.Status.CLOSED) {
                // Connected once, the client reconnects on its own (buffering publishes meanwhile); a
                // connection that gave up is replaced here.
                own = null;
                jetStream = null;
                Connection connection = Nats.connect(options);
                own = connection;
                jetStream = connection.jetStream(jetStreamOptions);
                reachable = true;
                log.info("{}: connected", description);
            }
            return jetStream;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops taking batches, waits a bounded time for the batches in flight, then closes the connection
     * this publisher opened (never a given one). Idempotent.
     */
    @Override
    public void close() {
        if (!threads.markClosed(lock)) {
            return;
        }
        threads.shutDown(publishTimeout.plusSeconds(1));
        lock.lock();
        try {
            if (own != null) {
                own.close();
                own = null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** @return the servers (credentials masked), the prefix and the timeout */
    @Override
    public String toString() {
        return description;
    }

    private static String masked(URI uri) {
        if (uri.getUserInfo() == null) {
            return uri.toString();
        }
        try {
            return new URI(uri.getScheme(), "****", uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
        } catch (URISyntaxException e) {
            return uri.getScheme() + "://****@" + uri.getHost() + ":" + uri.getPort();
        }
    }

    /**
     * Configures a {@link NatsPublisher}. Give exactly one of {@link #server(String)}, {@link
     * #options(Options)} and {@link #connection(Connection)}. Everything is checked at {@link #build()}.
     * The prefix, the publish timeout and the connection name are {@link NatsSettings}, set by their typed
     * setters, {@link #set(Setting, Object)} or {@link #settings(NatsSettings)}.
     */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private String server;
        private Options options;
        private Connection connection;
        private JetStreamOptions jetStreamOptions = JetStreamOptions.DEFAULT_JS_OPTIONS;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(NatsSettings.SETTINGS, NatsSettings.JAVA, "a NATS publisher");

        private CloudEventsMapping cloudEvents;

        private Builder() {}

        /**
         * @param server a server URL, {@code nats://host:4222}; credentials in it are never printed
         * @return this builder
         */
        public Builder server(String server) {
            this.server = server;
            return this;
        }

        /**
         * @param options full client options (TLS, authentication, several servers); the publisher
         *     connects with them when built and closes that connection in {@link #close()}
         * @return this builder
         */
        public Builder options(Options options) {
            this.options = options;
            return this;
        }

        /**
         * @param connection your connection, shared with the rest of the application; never closed here
         * @return this builder
         */
        public Builder connection(Connection connection) {
            this.connection = connection;
            return this;
        }

        /**
         * @param jetStreamOptions the JetStream context's options, for a domain or an API prefix
         *     (default: the client's defaults)
         * @return this builder
         */
        public Builder jetStreamOptions(JetStreamOptions jetStreamOptions) {
            this.jetStreamOptions = jetStreamOptions;
            return this;
        }

        /**
         * @param subjectPrefix put before the router's subject, for example {@code events.} (default
         *     none; {@code null} too); an event's own destination is used as it is
         * @return this builder
         */
        public Builder subjectPrefix(String subjectPrefix) {
            return set(NatsSettings.SUBJECT_PREFIX, subjectPrefix);
        }

        /**
         * @param publishTimeout how long a batch waits for its PubAcks (default 5 s; {@code null} too); then
         *     every unacknowledged event is a retry. Keep it below the relay's publish timeout.
         * @return this builder
         */
        public Builder publishTimeout(Duration publishTimeout) {
            return set(NatsSettings.PUBLISH_TIMEOUT, publishTimeout);
        }

        /**
         * @param connectionName the client name the server shows, with {@link #server(String)} (default
         *     {@code txoutbox}; {@code null} too)
         * @return this builder
         */
        public Builder connectionName(String connectionName) {
            return set(NatsSettings.CONNECTION_NAME, connectionName);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(NatsSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link NatsSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not one of {@link NatsSettings#SETTINGS}
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Sends every event as a CloudEvent in the NATS binding's binary content mode: every attribute as
         * a header named {@code ce-<attribute>} ({@code ce-id} = event id, {@code ce-type}, {@code
         * ce-source}, {@code ce-subject} = aggregate id, {@code ce-time}, {@code ce-specversion}, {@code
         * ce-datacontenttype}, {@code ce-eventversion}), values percent-encoded, the payload unchanged;
         * the headers that are not attributes stay as they are, and {@code Nats-Msg-Id} is still the
         * event id. Needs {@code io.txoutbox:txoutbox-cloudevents} on the class path. Default: off.
         *
         * @param mapping the CloudEvents mapping (its {@code source} above all)
         * @return this builder
         */
        public Builder cloudEvents(CloudEventsMapping mapping) {
            this.cloudEvents = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /**
         * @return the publisher; it starts connecting now, on a thread of its own
         * @throws OutboxValidationException naming, as it was given, a setting of {@link
         *     NatsSettings#SETTINGS} that is out of bounds: {@code NatsPublisher.Builder.publishTimeout is 0s;
         *     it must be positive}; also when not exactly one of server, options and connection is given
         *     ({@code field()} {@code NatsPublisher.Builder.server}), the server is not a NATS URL (the
         *     same), or the router or the JetStream options are {@code null} ({@code .router}, {@code
         *     .jetStreamOptions})
         */
        public NatsPublisher build() {
            int sources = (server != null ? 1 : 0) + (options != null ? 1 : 0) + (connection != null ? 1 : 0);
            Settings.check(
                    sources == 1,
                    "NatsPublisher.Builder.server",
                    null,
                    "NatsPublisher.Builder: give exactly one of server, options and connection, not " + sources);
            Settings.check(
                    router() != null, "NatsPublisher.Builder.router", null, "NatsPublisher.Builder.router is null");
            Settings.check(
                    jetStreamOptions != null,
                    "NatsPublisher.Builder.jetStreamOptions",
                    null,
                    "NatsPublisher.Builder.jetStreamOptions is null");
            NatsSettings settings = NatsSettings.of(given.values(), given.spelling());
            Options resolved = options;
            if (server != null) {
                try {
                    resolved = Options.builder()
                            .server(server)
                            .connectionName(settings.connectionName())
                            .maxReconnects(-1) // an outbox relay outlives any outage: reconnect forever
                            .connectionTimeout(settings.publishTimeout())
                            .build();
                } catch (IllegalArgumentException e) {
                    // Not the client's message: it may quote the URL with its password.
                    OutboxValidationException refused = new OutboxValidationException(
                            "NatsPublisher.Builder.server",
                            null,
                            "NatsPublisher.Builder.server is not a NATS URL like nats://host:4222");
                    refused.initCause(e);
                    throw refused;
                }
            }
            return new NatsPublisher(this, router(), resolved, settings);
        }
    }
}
