package io.txoutbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.internal.transport.Errors;
import io.txoutbox.internal.transport.PreparedBatch;
import io.txoutbox.internal.transport.PublisherThreads;
import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.AbstractPublisherBuilder;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.io.IOException;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to one RabbitMQ exchange, with publisher confirms. Build it with {@link
 * #builder()}.
 *
 * <p>What it promises, per event of a batch:
 *
 * <ul>
 *   <li>{@code PUBLISHED} only after RabbitMQ acked the message (publisher confirms) and did not
 *       return it as unroutable: the message is in at least one queue, persistent (delivery mode 2).
 *   <li>{@code DEAD} when it can never succeed as it is: no queue is bound for its routing key
 *       ({@code mandatory} return), the exchange does not exist or the user may not write to it, or
 *       the routing key is over 255 bytes.
 *   <li>{@code RETRY} for everything else: a nack, a lost connection or channel, a broker that blocks
 *       publishers, no confirm within {@code confirmTimeout}.
 * </ul>
 *
 * <p>Each message carries the event id as its AMQP message id, the event's content type, type,
 * correlation id and creation time as properties, and {@link io.txoutbox.spi.MessageHeaders} as
 * string headers. The publisher starts opening its connection at {@link Builder#build()}, on a thread of
 * its own (a broker that is down then makes the first batch a retry), and opens a new one on the next
 * batch after a failure. Thread-safe: concurrent
 * batches use channels of their own. {@link #close()} closes the connection it opened.
 */
public final class RabbitPublisher implements Publisher {
    private static final Logger log = LoggerFactory.getLogger(RabbitPublisher.class);

    private final ConnectionFactory factory;
    private final String exchange;
    private final Router router;
    private final Duration confirmTimeout;
    private final String connectionName;
    private final String description;
    private final PublisherThreads threads;
    private final Deque<ConfirmingChannel> idle = new ConcurrentLinkedDeque<>();
    private final ReentrantLock connectionLock = new ReentrantLock();
    private Connection connection; // guarded by connectionLock
    private volatile String blockedReason;
    private volatile boolean reachable = true;
    private final Function<ClaimedEvent, AMQP.BasicProperties> properties;

    private RabbitPublisher(Builder b, RabbitSettings settings, Router router, ConnectionFactory factory) {
        this.factory = factory;
        this.exchange = settings.exchange();
        this.router = router;
        this.confirmTimeout = settings.confirmTimeout();
        this.connectionName = settings.connectionName();
        if (b.cloudEvents == null) {
            this.properties = Messages::properties;
        } else {
            this.properties = new CloudEventsProperties(b.cloudEvents);
        }
        this.description = "RabbitPublisher[" + factory.getUsername() + ":****@" + factory.getHost() + ":"
                + factory.getPort() + " vhost=" + factory.getVirtualHost() + ", exchange="
                + Messages.describeExchange(exchange) + ", confirmTimeout=" + confirmTimeout.toMillis() + " ms]";
        this.threads = new PublisherThreads("rabbitmq", description);
        // Connect now, on a thread of ours, so that the first batch does not wait for the connection
        // set-up; a broker that is down now is reached again by the next batch.
        threads.execute(this::connectEarly);
    }

    private void connectEarly() {
        try {
            connection();
        } catch (IOException | TimeoutException | RuntimeException e) {
            log.warn("{}: cannot connect yet, the first batch tries again: {}", description, e.toString());
        }
    }

    /** @return whether this publisher's connection is open (for tests) */
    boolean isConnected() {
        connectionLock.lock();
        try {
            return connection != null && connection.isOpen();
        } finally {
            connectionLock.unlock();
        }
    }

    /** @return a builder with the defaults: localhost:5672, vhost {@code /}, guest/guest, the default exchange */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Publishes the batch on a thread of this publisher and completes when every message is confirmed,
     * returned or failed, or when the confirm timeout passes (then the unconfirmed ones are retries).
     * It never completes exceptionally for a broker failure: those are per-event outcomes.
     *
     * @param batch the claimed events, never empty
     * @return one outcome per event, in batch order; a failed stage only if this publisher is closed
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        return threads.submit(() -> publishNow(batch));
    }

    private List<PublishOutcome> publishNow(List<ClaimedEvent> batch) {
        PreparedBatch<AMQP.BasicProperties> prepared =
                PreparedBatch.prepare(batch, router, Messages::routingKeyProblem, properties, "the AMQP message");
        if (!prepared.ready().isEmpty()) {
            send(prepared);
        }
        return prepared.outcomes();
    }

    private void send(PreparedBatch<AMQP.BasicProperties> batch) {
        String blocked = blockedReason;
        if (blocked != null) {
            // A blocked connection accepts writes into its socket and never confirms: fail fast instead.
            batch.fillMissing(PublishOutcome.retry("RabbitMQ blocks publishers on this connection: " + blocked));
            return;
        }
        ConfirmingChannel channel;
        try {
            channel = acquire();
        } catch (IOException | TimeoutException | RuntimeException e) {
            String why = Errors.describe(e);
            if (reachable) {
                log.warn("{}: cannot open a channel, retrying on the next batch: {}", description, why);
            } else {
                log.debug("{}: still cannot open a channel: {}", description, why);
            }
            reachable = false;
            abortConnection(); // a connection that cannot open a channel in time is of no use: start over
            batch.fillMissing(PublishOutcome.retry("cannot reach RabbitMQ: " + why));
            return;
        }
        boolean clean = false;
        try {
            clean = channel.publishAndAwait(batch, confirmTimeout.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // The channel has let go of the batch: a confirm arriving now cannot write into it.
            batch.fillMissing(PublishOutcome.retry("interrupted while waiting for RabbitMQ's confirms"));
        } finally {
            if (clean && !threads.isClosed()) {
                idle.push(channel);
            } else {
                // Confirms still owed to this channel would be confused with the next batch's: drop it,
                // off this thread, since closing waits for a broker that may not answer.
                closeLater(channel);
            }
        }
    }

    private void closeLater(ConfirmingChannel channel) {
        // Refused while shutting down: closing the connection closes the channel too.
        threads.executeUnlessClosed(channel::closeQuietly);
    }

    private ConfirmingChannel acquire() throws IOException, TimeoutException {
        ConfirmingChannel channel;
        while ((channel = idle.poll()) != null) {
            if (channel.isOpen()) {
                return channel;
            }
        }
        return ConfirmingChannel.open(connection(), exchange);
    }

    private Connection connection() throws IOException, TimeoutException {
        connectionLock.lock();
        try {
            if (threads.isClosed()) {
                throw threads.closedFailure(null);
            }
            if (connection == null || !connection.isOpen()) {
                if (connection != null) {
                    connection.abort();
                }
                connection = null;
                Connection opened = factory.newConnection(connectionName);
                opened.addBlockedListener(reason -> blockedReason = reason, () -> blockedReason = null);
                blockedReason = null;
                connection = opened;
                reachable = true;
                log.info("{}: connected", description);
            }
            return connection;
        } finally {
            connectionLock.unlock();
        }
    }

    private void abortConnection() {
        connectionLock.lock();
        try {
            if (connection != null) {
                connection.abort((int) Math.min(Integer.MAX_VALUE, confirmTimeout.toMillis()));
                connection = null;
            }
        } finally {
            connectionLock.unlock();
        }
    }

    /**
     * Stops taking batches, waits a bounded time for the batches in flight, then closes the connection
     * this publisher opened. Idempotent.
     */
    @Override
    public void close() {
        if (!threads.markClosed(connectionLock)) {
            return;
        }
        threads.shutDown(confirmTimeout.plusSeconds(1));
        // Closing the connection closes its channels; abort does not throw and waits a bounded time.
        abortConnection();
        idle.clear();
    }

    /** @return the broker address, user (password masked), virtual host and exchange */
    @Override
    public String toString() {
        return description;
    }

    /**
     * Configures a {@link RabbitPublisher}. Give either a {@link ConnectionFactory} or the plain
     * connection settings, not both. Everything is checked at {@link #build()}.
     */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private ConnectionFactory connectionFactory;
        private String host;
        private Integer port;
        private String virtualHost;
        private String username;
        private String password;
        private CloudEventsMapping cloudEvents;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(RabbitSettings.SETTINGS, RabbitSettings.JAVA, "a RabbitMQ publisher");

        private Builder() {}

        /**
         * Uses a connection factory for TLS, other credentials or client settings. The publisher copies
         * it and, in the copy, turns the client's automatic recovery off (it opens a new connection
         * itself on the next batch, so that no message is ever counted on a recovered channel whose
         * confirms were lost) and sets the channel RPC timeout to {@code confirmTimeout}. Your factory
         * is not modified.
         *
         * @param connectionFactory the factory; not with host, port, virtualHost, username or password
         * @return this builder
         */
        public Builder connectionFactory(ConnectionFactory connectionFactory) {
            this.connectionFactory = connectionFactory;
            return this;
        }

        /**
         * @param host the broker's host (default {@code localhost})
         * @return this builder
         */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /**
         * @param port the broker's AMQP port (default 5672)
         * @return this builder
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * @param virtualHost the virtual host (default {@code /})
         * @return this builder
         */
        public Builder virtualHost(String virtualHost) {
            this.virtualHost = virtualHost;
            return this;
        }

        /**
         * @param username the user (default {@code guest})
         * @param password the password (default {@code guest}); never logged or printed
         * @return this builder
         */
        public Builder credentials(String username, String password) {
            this.username = username;
            this.password = password;
            return this;
        }

        /**
         * The one exchange every event goes to; the router picks the routing key. The default is the
         * AMQP default exchange {@code ""}, which routes a message to the queue named by its routing
         * key. Name a topic or direct exchange to let consumers bind their own queues.
         *
         * @param exchange the exchange's name, which must exist (it is not declared), at most 255 bytes in
         *     UTF-8; {@code null} for the default: {@link RabbitSettings#EXCHANGE}
         * @return this builder
         */
        public Builder exchange(String exchange) {
            return set(RabbitSettings.EXCHANGE, exchange);
        }

        /**
         * @param confirmTimeout how long a batch waits for its confirms (default 5 s, at most 10 minutes);
         *     then every unconfirmed event is a retry. Keep it below the relay's publish timeout. {@code
         *     null} for the default: {@link RabbitSettings#CONFIRM_TIMEOUT}
         * @return this builder
         */
        public Builder confirmTimeout(Duration confirmTimeout) {
            return set(RabbitSettings.CONFIRM_TIMEOUT, confirmTimeout);
        }

        /**
         * @param connectionName shown in RabbitMQ's management UI (default {@code txoutbox}), not blank;
         *     {@code null} for the default: {@link RabbitSettings#CONNECTION_NAME}
         * @return this builder
         */
        public Builder connectionName(String connectionName) {
            return set(RabbitSettings.CONNECTION_NAME, connectionName);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(RabbitSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link RabbitSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not a setting of a RabbitMQ publisher
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Sends every event as a CloudEvent in the AMQP binding's binary content mode: the attributes as
         * headers named {@code cloudEvents_<attribute>} ({@code cloudEvents_id} = event id, {@code
         * cloudEvents_type}, {@code cloudEvents_source}, {@code cloudEvents_subject} = aggregate id,
         * {@code cloudEvents_time}, {@code cloudEvents_specversion}, {@code cloudEvents_eventversion}), in
         * their canonical string form, {@code datacontenttype} as the {@code content_type} property, the
         * body unchanged; the headers that are not attributes and the other properties stay as they are.
         * Needs {@code io.txoutbox:txoutbox-cloudevents} on the class path. Default: off.
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
         * @throws io.txoutbox.OutboxValidationException naming a setting of {@link RabbitSettings} that is
         *     out of its limits, as it was given (in Java, {@code RabbitPublisher.Builder.confirmTimeout}), or
         *     the connection setting or the router that is missing, out of range or contradicts another (its
         *     {@code field()}: {@code RabbitPublisher.Builder.port}, {@code .host}, {@code .credentials},
         *     {@code .connectionFactory}, {@code .router})
         */
        public RabbitPublisher build() {
            RabbitSettings settings = RabbitSettings.of(given.values(), given.spelling());
            Settings.check(
                    router() != null, "RabbitPublisher.Builder.router", null, "RabbitPublisher.Builder.router is null");
            Duration confirmTimeout = settings.confirmTimeout();
            ConnectionFactory factory;
            if (connectionFactory != null) {
                Settings.check(
                        host == null && port == null && virtualHost == null && username == null && password == null,
                        "RabbitPublisher.Builder.connectionFactory",
                        null,
                        "RabbitPublisher.Builder: give either connectionFactory or host/port/virtualHost/"
                                + "credentials, not both");
                factory = connectionFactory.clone();
            } else {
                factory = new ConnectionFactory();
                factory.setHost(orDefault(host, "localhost"));
                factory.setPort(port == null ? ConnectionFactory.DEFAULT_AMQP_PORT : port);
                factory.setVirtualHost(orDefault(virtualHost, "/"));
                factory.setUsername(orDefault(username, "guest"));
                factory.setPassword(orDefault(password, "guest"));
                factory.setConnectionTimeout(10_000);
                Settings.check(
                        !factory.getHost().isBlank(),
                        "RabbitPublisher.Builder.host",
                        null,
                        "RabbitPublisher.Builder.host must not be blank");
                Settings.check(
                        port == null || (port > 0 && port <= 65_535),
                        "RabbitPublisher.Builder.port",
                        "1-65535",
                        "RabbitPublisher.Builder.port must be 1-65535, not " + port);
                Settings.check(
                        !factory.getUsername().isEmpty(),
                        "RabbitPublisher.Builder.credentials",
                        null,
                        "RabbitPublisher.Builder.credentials: username is empty");
            }
            // Channel open, confirm.select and close are quick on a healthy broker; a silent one must
            // not hold a publishing thread for the client's default of 10 minutes.
            factory.setChannelRpcTimeout((int) confirmTimeout.toMillis());
            factory.setAutomaticRecoveryEnabled(false);
            factory.setTopologyRecoveryEnabled(false);
            return new RabbitPublisher(this, settings, router(), factory);
        }

        private static String orDefault(String value, String fallback) {
            return value == null ? fallback : value;
        }

        @Override
        public String toString() {
            return "RabbitPublisher.Builder[host=" + host + ", port=" + port + ", virtualHost=" + virtualHost
                    + ", username=" + username + ", password=" + (password == null ? null : "****") + ", exchange="
                    + Objects.requireNonNullElse(
                            given.values().given(RabbitSettings.EXCHANGE), RabbitSettings.EXCHANGE.defaultValue())
                    + "]";
        }
    }
}
