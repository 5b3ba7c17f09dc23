package io.txoutbox.jms;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.internal.transport.Errors;
import io.txoutbox.internal.transport.Outcomes;
import io.txoutbox.internal.transport.PublisherThreads;
import io.txoutbox.internal.transport.Route;
import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.AbstractPublisherBuilder;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events through any Jakarta Messaging 3.1 provider (ActiveMQ Artemis, IBM MQ,
 * ActiveMQ Classic, Solace, ...), given its {@link ConnectionFactory}. Build it with {@link
 * #builder()}.
 *
 * <p>What it promises, per event of a batch:
 *
 * <ul>
 *   <li>{@code PUBLISHED} only after the provider confirmed a {@code PERSISTENT} send: the
 *       synchronous send returned (the default), or, with {@link Builder#asyncSend(boolean)}, its
 *       {@link CompletionListener} reported completion.
 *   <li>{@code DEAD} when it can never succeed as it is: the destination is invalid or does not exist
 *       ({@code InvalidDestinationException}), the provider refuses the message ({@code
 *       MessageFormatException}) or the send ({@code JMSSecurityException}), the route is blank, or a
 *       header name cannot be a property.
 *   <li>{@code RETRY} for everything else: no connection, a lost connection, a provider out of room
 *       ({@code ResourceAllocationException}), no completion within {@code publishTimeout}.
 * </ul>
 *
 * <p>Messages: see {@link JmsHeaders} (the event id is the property {@value JmsHeaders#EVENT_ID_PROPERTY}
 * and every header a string property; text or bytes body); {@code JMSCorrelationID} is the correlation
 * id and {@code JMSType} the event type. A route is {@code queue://name}, {@code topic://name} or a bare
 * name of the builder's {@link DestinationType}.
 *
 * <p>The publisher connects at {@link Builder#build()}, on a thread of its own, and reconnects there
 * after the provider reports the connection lost (its {@code ExceptionListener}), with backoff from
 * 100 ms to 5 s; {@link #publish(List)} never connects and never blocks: while there is no connection it
 * answers retry at once. Each of its {@code sessions} lanes is one thread with one session and one
 * producer; a batch is split over the lanes by aggregate, so the events of one aggregate go out in
 * batch order on one session. Thread-safe. {@link #close()} closes the connection it opened.
 */
public final class JmsPublisher implements Publisher {
    /** What a bare route names. */
    public enum DestinationType {
        /** A queue: {@code Session.createQueue(name)}. */
        QUEUE,
        /** A topic: {@code Session.createTopic(name)}; a topic without subscribers drops the message. */
        TOPIC
    }

    private static final Logger log = LoggerFactory.getLogger(JmsPublisher.class);
    private static final long FIRST_RECONNECT_MILLIS = 100;
    private static final long MAX_RECONNECT_MILLIS = 5_000;
    /** Beyond the lanes' own deadline: how long a lane stuck in a provider call may take to give up. */
    private static final long STUCK_GRACE_MILLIS = 500;

    private final ConnectionFactory factory;
    private final String username;
    private final String password;
    private final DestinationType destinationType;
    private final Router router;
    private final Duration publishTimeout;
    private final String description;
    private final ExecutorService[] lanes;
    private final ScheduledExecutorService connector;
    private final ExecutorService closer;
    private final AtomicReference<Link> link = new AtomicReference<>();
    private final CountDownLatch firstAttempt = new CountDownLatch(1);
    private volatile boolean asyncSend;
    private volatile String notConnected = "not connected to the JMS provider yet";
    private volatile boolean closed;
    private long reconnectMillis = FIRST_RECONNECT_MILLIS; // connector thread only
    private boolean failing; // connector thread only

    private JmsPublisher(Builder b, JmsSettings settings, Router router) {
        this.factory = b.connectionFactory;
        this.username = b.username;
        this.password = b.password;
        this.destinationType = settings.destinationType();
        this.router = router;
        this.publishTimeout = settings.publishTimeout();
        this.asyncSend = settings.asyncSend();
        this.description = "JmsPublisher[" + factory.getClass().getName()
                + (username == null ? "" : ", user=" + username + ", password=****")
                + ", destinationType=" + destinationType + ", sessions=" + settings.sessions() + ", asyncSend="
                + asyncSend + ", publishTimeout=" + publishTimeout.toMillis() + " ms]";
        String prefix = PublisherThreads.prefix("jms");
        this.lanes = new ExecutorService[settings.sessions()];
        for (int i = 0; i < lanes.length; i++) {
            String name = prefix + "lane-" + (i + 1);
            lanes[i] = Executors.newSingleThreadExecutor(r -> PublisherThreads.daemon(r, name));
        }
        this.connector =
                Executors.newSingleThreadScheduledExecutor(r -> PublisherThreads.daemon(r, prefix + "connector"));
        this.closer = Executors.newCachedThreadPool(PublisherThreads.daemonThreads(prefix + "closer-"));
    }

    /** @return a builder; give at least {@link Builder#connectionFactory(ConnectionFactory)} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Sends the batch on the lanes and completes when every send is confirmed or failed, or when {@code
     * publishTimeout} passed (then the unconfirmed ones are retries). Without a connection it completes
     * at once with retries. It never completes exceptionally for a provider failure: those are
     * per-event outcomes.
     *
     * @param batch the claimed events, never empty
     * @return one outcome per event, in batch order; a failed stage only if this publisher is closed
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException(description + " is closed"));
        }
        AtomicReferenceArray<PublishOutcome> outcomes = new AtomicReferenceArray<>(batch.size());
        Link current = link.get();
        if (current == null || current.failed()) {
            return CompletableFuture.completedFuture(
                    Outcomes.orElse(outcomes, PublishOutcome.retry(notConnected + " (reconnecting)")));
        }
        long deadline = System.nanoTime() + publishTimeout.toNanos();
        List<List<Integer>> byLane = new ArrayList<>(lanes.length);
        for (int i = 0; i < lanes.length; i++) {
            byLane.add(new ArrayList<>());
        }
        for (int i = 0; i < batch.size(); i++) {
            ClaimedEvent e = batch.get(i);
            int lane = Math.floorMod((e.aggregateType() + "/" + e.aggregateId()).hashCode(), lanes.length);
            byLane.get(lane).add(i);
        }
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        List<Integer> sendLanes = new ArrayList<>();
        try {
            for (int lane = 0; lane < lanes.length; lane++) {
                List<Integer> indexes = byLane.get(lane);
                if (!indexes.isEmpty()) {
                    int l = lane;
                    sends.add(CompletableFuture.runAsync(
                            () -> sendOnLane(current, l, batch, indexes, outcomes, deadline), lanes[lane]));
                    sendLanes.add(lane);
                }
            }
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException(description + " is closed", e));
        }
        long waitMillis = publishTimeout.toMillis() + STUCK_GRACE_MILLIS;
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, waitMillis, TimeUnit.MILLISECONDS)
                .handle((done, error) -> {
                    for (int i = 0; i < sends.size(); i++) {
                        if (!sends.get(i).isDone()) {
                            // The lane is stuck in a provider call: closing its session ends the call.
                            retireSession(
                                    current, sendLanes.get(i), "a send did not return within " + waitMillis + " ms");
                        }
                    }
                    return Outcomes.orElse(
                            outcomes,
                            PublishOutcome.retry(
                                    error != null
                                            ? "publish to the JMS provider failed: " + Errors.withRootCause(error)
                                            : "no confirmation from the JMS provider within "
                                                    + publishTimeout.toMillis()
                                                    + " ms (JmsPublisher.Builder.publishTimeout)"));
                });
    }

    /** Runs on the lane's own thread: the only thread that uses the lane's session. */
    private void sendOnLane(
            Link current,
            int lane,
            List<ClaimedEvent> batch,
            List<Integer> indexes,
            AtomicReferenceArray<PublishOutcome> outcomes,
            long deadline) {
        if (deadline - System.nanoTime() <= 0) {
            fill(
                    outcomes,
                    indexes,
                    PublishOutcome.retry("not sent: the publisher's JMS session was busy for longer"
                            + " than publishTimeout (JmsPublisher.Builder.publishTimeout)"));
            return;
        }
        LaneSession session = current.session(lane);
        if (session == null || current.failed()) {
            fill(
                    outcomes,
                    indexes,
                    PublishOutcome.retry(
                            current.failed()
                                    ? Link.lostReason(current.failure())
                                    : "the publisher's JMS session is being re-opened"));
            return;
        }
        Pending pending = new Pending(outcomes);
        current.register(pending);
        boolean sessionBroken = false;
        try {
            for (int index : indexes) {
                if (current.failed()) {
                    break;
                }
                ClaimedEvent event = batch.get(index);
                Route routed = Route.of(
                        event, router, d -> d == null || d.isBlank() ? "the router gave no destination" : null);
                if (routed.dead() != null) {
                    outcomes.set(index, routed.dead());
                    continue;
                }
                String route = routed.destination();
                try {
                    Destination destination = session.destination(route, destinationType);
                    Message message = session.message(event);
                    send(session, destination, message, index, pending, outcomes);
                } catch (IllegalArgumentException e) {
                    outcomes.set(index, PublishOutcome.dead("the event cannot be a JMS message: " + e.getMessage()));
                } catch (JMSException | JMSRuntimeException e) {
                    pending.forget(index);
                    outcomes.compareAndSet(index, null, Failures.of(e, route));
                    if (Failures.breaksSession(e)) {
                        sessionBroken = true;
                        break;
                    }
                }
            }
            boolean settled = pending.await(
                    deadline,
                    "no completion from the JMS provider within " + publishTimeout.toMillis()
                            + " ms (JmsPublisher.Builder.publishTimeout)");
            if (!settled && !current.failed()) {
                // Completions still owed would arrive on a session that is given new sends: start afresh.
                sessionBroken = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            current.unregister(pending);
        }
        String why =
                current.failed() ? Link.lostReason(current.failure()) : "not sent: an earlier send of its batch failed";
        fill(outcomes, indexes, PublishOutcome.retry(why));
        if (sessionBroken) {
            retireSession(current, lane, "a send failed or was not confirmed in time");
        }
    }

    private void send(
            LaneSession session,
            Destination destination,
            Message message,
            int index,
            Pending pending,
            AtomicReferenceArray<PublishOutcome> outcomes)
            throws JMSException {
        if (asyncSend) {
            Completion completion = new Completion(pending, index, destination);
            pending.expect(index);
            try {
                session.send(destination, message, completion);
            } catch (UnsupportedOperationException e) {
                pending.forget(index);
                useSynchronousSends("the provider does not support asynchronous send (" + e + ")");
                sendNow(session, destination, message, index, outcomes);
            }
        } else {
            sendNow(session, destination, message, index, outcomes);
        }
    }

    private static void sendNow(
            LaneSession session,
            Destination destination,
            Message message,
            int index,
            AtomicReferenceArray<PublishOutcome> outcomes)
            throws JMSException {
        session.send(destination, message);
        outcomes.compareAndSet(index, null, PublishOutcome.PUBLISHED);
    }

    private void useSynchronousSends(String why) {
        if (asyncSend) {
            asyncSend = false;
            log.warn("{}: {}; sending synchronously from now on", description, why);
        }
    }

    private static void fill(AtomicReferenceArray<PublishOutcome> outcomes, List<Integer> indexes, PublishOutcome o) {
        for (int index : indexes) {
            outcomes.compareAndSet(index, null, o);
        }
    }

    /** Takes a lane's session out of service, closes it off the lane, and opens a new one on the connector. */
    private void retireSession(Link current, int lane, String why) {
        LaneSession session = current.session(lane);
        if (session == null || current.retire(lane, session) == null) {
            return;
        }
        log.debug("{}: re-opening the session of lane {}: {}", description, lane + 1, why);
        runQuietly(closer, session::closeQuietly);
        runQuietly(connector, () -> reopen(current, lane));
    }

    private void reopen(Link current, int lane) {
        if (closed || current.failed() || link.get() != current) {
            return;
        }
        try {
            LaneSession fresh = LaneSession.open(current.connection());
            LaneSession old = current.replace(lane, fresh);
            if (old != null) {
                runQuietly(closer, old::closeQuietly);
            }
        } catch (JMSException | RuntimeException e) {
            // A connection that cannot open a session is of no use: replace it.
            current.fail(e);
        }
    }

    /** Runs on the connector thread: one connection attempt, then the next one scheduled on failure. */
    private void connect() {
        if (closed) {
            firstAttempt.countDown();
            return;
        }
        Connection connection = null;
        try {
            connection = username == null ? factory.createConnection() : factory.createConnection(username, password);
            Link fresh = new Link(connection, lanes.length, this::lost);
            connection.setExceptionListener(fresh);
            for (int lane = 0; lane < lanes.length; lane++) {
                fresh.replace(lane, LaneSession.open(connection));
            }
            link.set(fresh);
            if (closed && link.compareAndSet(fresh, null)) {
                fresh.closeQuietly(); // close() ran meanwhile and found no link to close
                return;
            }
            reconnectMillis = FIRST_RECONNECT_MILLIS;
            if (failing) {
                log.info("{}: connected again", description);
            } else {
                log.info("{}: connected", description);
            }
            failing = false;
        } catch (JMSException | RuntimeException e) {
            if (connection != null) {
                Connection broken = connection;
                runQuietly(closer, () -> closeQuietly(broken));
            }
            notConnected = "cannot connect to the JMS provider: " + Errors.withRootCause(e);
            if (!failing) {
                log.warn("{}: {}; retrying in the background", description, notConnected);
            } else {
                log.debug("{}: {}", description, notConnected);
            }
            failing = true;
            scheduleConnect(reconnectMillis);
            reconnectMillis = Math.min(MAX_RECONNECT_MILLIS, reconnectMillis * 2);
        } finally {
            firstAttempt.countDown();
        }
    }

    private void scheduleConnect(long delayMillis) {
        if (closed) {
            return;
        }
        try {
            connector.schedule(this::connect, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Closing.
        }
    }

    /** The link's failure callback: any thread, once per link. */
    private void lost(Link failed, Throwable cause) {
        if (!link.compareAndSet(failed, null)) {
            return;
        }
        notConnected = Link.lostReason(cause);
        if (!closed) {
            log.warn("{}: {}; reconnecting", description, notConnected);
        }
        runQuietly(closer, failed::closeQuietly);
        runQuietly(connector, () -> {
            failing = true;
            scheduleConnect(FIRST_RECONNECT_MILLIS);
        });
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (JMSException | RuntimeException e) {
            // Already broken.
        }
    }

    private static void runQuietly(ExecutorService executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // Closing: close() releases what is left.
        }
    }

    /**
     * Stops taking batches, waits a bounded time for the batches in flight, then closes the connection
     * this publisher opened (and with it its sessions). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        connector.shutdownNow();
        long waitMillis = publishTimeout.toMillis() + 1_000;
        for (ExecutorService lane : lanes) {
            lane.shutdown();
        }
        try {
            for (ExecutorService lane : lanes) {
                if (!lane.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
                    lane.shutdownNow();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Link last = link.getAndSet(null);
        if (last != null) {
            runQuietly(closer, last::closeQuietly);
        }
        closer.shutdown();
        try {
            if (!closer.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
                log.warn("{}: the provider did not close the connection within {} ms", description, waitMillis);
                closer.shutdownNow();
            }
        } catch (InterruptedException e) {
            closer.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** @return the factory's class, the user (password masked), the destination type and the limits */
    @Override
    public String toString() {
        return description;
    }

    /** Settles one asynchronous send when the provider reports it complete or failed. */
    private static final class Completion implements CompletionListener {
        private final Pending pending;
        private final int index;
        private final Destination destination;

        Completion(Pending pending, int index, Destination destination) {
            this.pending = pending;
            this.index = index;
            this.destination = destination;
        }

        @Override
        public void onCompletion(Message message) {
            pending.settle(index, PublishOutcome.PUBLISHED);
        }

        @Override
        public void onException(Message message, Exception exception) {
            pending.settle(index, Failures.of(exception, String.valueOf(destination)));
        }
    }

    /** Configures a {@link JmsPublisher}. Everything is checked at {@link #build()}. */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private ConnectionFactory connectionFactory;
        private String username;
        private String password;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(JmsSettings.SETTINGS, JmsSettings.JAVA, "a JMS publisher");

        private Builder() {}

        /**
         * @param connectionFactory the provider's factory, for example Artemis's {@code
         *     ActiveMQConnectionFactory("tcp://broker:61616")}; the publisher opens one connection from it
         * @return this builder
         */
        public Builder connectionFactory(ConnectionFactory connectionFactory) {
            this.connectionFactory = connectionFactory;
            return this;
        }

        /**
         * @param username the user for {@code createConnection(user, password)} (default: the factory's own)
         * @param password the password; never logged or printed
         * @return this builder
         */
        public Builder credentials(String username, String password) {
            this.username = username;
            this.password = password;
            return this;
        }

        /**
         * @param destinationType what a bare route names (default {@link DestinationType#QUEUE}); a route
         *     {@code queue://name} or {@code topic://name} says it itself; {@code null} for the default:
         *     {@link JmsSettings#DESTINATION_TYPE}
         * @return this builder
         */
        public Builder destinationType(DestinationType destinationType) {
            return set(JmsSettings.DESTINATION_TYPE, destinationType);
        }

        /**
         * @param publishTimeout how long a batch waits for its confirmations (default 5 s, at most 10
         *     minutes); then every unconfirmed event is a retry. Keep it below the relay's publish timeout.
         *     {@code null} for the default: {@link JmsSettings#PUBLISH_TIMEOUT}
         * @return this builder
         */
        public Builder publishTimeout(Duration publishTimeout) {
            return set(JmsSettings.PUBLISH_TIMEOUT, publishTimeout);
        }

        /**
         * @param sessions how many lanes send in parallel, each a thread with its own session and
         *     producer (default 4, 1 to 64): {@link JmsSettings#SESSIONS}
         * @return this builder
         */
        public Builder sessions(int sessions) {
            return set(JmsSettings.SESSIONS, sessions);
        }

        /**
         * Sends with a {@link CompletionListener} and waits for the completions, instead of one
         * synchronous send after another on each lane (default false). Turn it on only for a provider
         * whose completion means that its broker has the message: JMS lets a provider complete early,
         * and some do (ActiveMQ Artemis without a {@code confirmationWindowSize}, which {@link #build()}
         * therefore refuses). The publisher falls back to synchronous sends if the provider does not
         * support asynchronous ones.
         *
         * @param asyncSend whether to send asynchronously: {@link JmsSettings#ASYNC_SEND}
         * @return this builder
         */
        public Builder asyncSend(boolean asyncSend) {
            return set(JmsSettings.ASYNC_SEND, asyncSend);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(JmsSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link JmsSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not a setting of a JMS publisher
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * @return the publisher, connected if the provider answered within {@code publishTimeout}; if not,
         *     it keeps connecting in the background and its batches are retries until it succeeds
         * @throws OutboxValidationException naming a setting of {@link JmsSettings} that is out of its
         *     limits, as it was given (in Java, {@code JmsPublisher.Builder.sessions}), or naming in Java the
         *     factory, the credentials, the router or an {@code asyncSend} the factory does not support
         */
        public JmsPublisher build() {
            require(
                    connectionFactory != null,
                    "JmsPublisher.Builder.connectionFactory",
                    null,
                    "JmsPublisher.Builder.connectionFactory is required");
            JmsSettings settings = JmsSettings.of(given.values(), given.spelling());
            require(router() != null, "JmsPublisher.Builder.router", null, "JmsPublisher.Builder.router is null");
            require(
                    (username == null) == (password == null) && (username == null || !username.isBlank()),
                    "JmsPublisher.Builder.credentials",
                    null,
                    "JmsPublisher.Builder.credentials needs a non-blank user and a password");
            if (settings.asyncSend()) {
                Integer window = artemisConfirmationWindow(connectionFactory);
                require(
                        window == null || window > 0,
                        "JmsPublisher.Builder.asyncSend",
                        "confirmationWindowSize > 0",
                        "JmsPublisher.Builder.asyncSend: ActiveMQ Artemis completes asynchronous sends before its"
                                + " broker has the message unless the factory's confirmationWindowSize is positive"
                                + " (it is " + window + "); set it, for example ?confirmationWindowSize=1048576,"
                                + " or send synchronously");
            }
            JmsPublisher publisher = new JmsPublisher(this, settings, router());
            publisher.connector.execute(publisher::connect);
            try {
                publisher.firstAttempt.await(settings.publishTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return publisher;
        }

        /**
         * @return the confirmation window of an ActiveMQ Artemis factory, or {@code null} for another
         *     provider (read by reflection: this module depends on no provider)
         */
        private static Integer artemisConfirmationWindow(ConnectionFactory factory) {
            if (!factory.getClass().getName().startsWith("org.apache.activemq.artemis.")) {
                return null;
            }
            try {
                Object window = factory.getClass()
                        .getMethod("getConfirmationWindowSize")
                        .invoke(factory);
                return window instanceof Integer size ? size : null;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        private static void require(boolean condition, String field, String limit, String message) {
            Settings.check(condition, field, limit, message);
        }

        /** @return the settings, with the password masked */
        @Override
        public String toString() {
            return "JmsPublisher.Builder[connectionFactory="
                    + (connectionFactory == null
                            ? null
                            : connectionFactory.getClass().getName()) + ", user=" + username
                    + ", password=" + (password == null ? null : "****") + ", destinationType="
                    + given(JmsSettings.DESTINATION_TYPE) + ", sessions=" + given(JmsSettings.SESSIONS)
                    + ", asyncSend=" + given(JmsSettings.ASYNC_SEND) + ", publishTimeout="
                    + given(JmsSettings.PUBLISH_TIMEOUT) + "]";
        }

        /** @return the value given, not yet checked, or the default */
        private <T> T given(Setting<T> setting) {
            return Objects.requireNonNullElse(given.values().given(setting), setting.defaultValue());
        }
    }
}
