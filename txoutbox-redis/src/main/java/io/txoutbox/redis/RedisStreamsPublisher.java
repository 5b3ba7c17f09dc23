package io.txoutbox.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.txoutbox.OutboxValidationException;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Publishes outbox events to Redis Streams: one {@code XADD} per event, the whole batch pipelined on
 * one connection and flushed once. An event counts as published only when Redis answered its
 * {@code XADD} with an entry id.
 *
 * <p>Each stream entry carries the payload bytes under the field {@value #PAYLOAD_FIELD} and every
 * {@link MessageHeaders#of(ClaimedEvent) message header} as a field of its own ({@code event-id},
 * {@code event-type}, ...). A Redis stream does not deduplicate: after a relay crash or a timeout the
 * same event may be added twice, with the same {@code event-id}; consumers deduplicate on it.
 *
 * <p>Outcomes: an entry id is {@code PUBLISHED}; a key that holds another type ({@code WRONGTYPE}), a
 * command Redis rejects as such ({@code ERR}) or an event the router cannot route is {@code DEAD};
 * connection failures, timeouts and every other Redis error ({@code LOADING}, {@code OOM},
 * {@code READONLY}, {@code NOPERM}...) are {@code RETRY}.
 *
 * <p>Thread-safe: several relays may share one publisher. {@link #toString()} masks credentials.
 */
public final class RedisStreamsPublisher implements Publisher {
    /** The stream field that carries the payload bytes; an event header of this name is not carried. */
    public static final String PAYLOAD_FIELD = "payload";

    private static final byte[] PAYLOAD_FIELD_BYTES = PAYLOAD_FIELD.getBytes(StandardCharsets.UTF_8);

    private final RedisConnector connector;
    private final Router router;
    private final long maxLen;
    private final Duration commandTimeout;

    private RedisStreamsPublisher(RedisSettings settings, Router router, RedisConnector connector) {
        this.connector = connector;
        String keyPrefix = settings.keyPrefix();
        this.router = keyPrefix.isEmpty() ? router : router.withPrefix(keyPrefix);
        this.maxLen = settings.maxLen();
        this.commandTimeout = settings.commandTimeout();
        connector.connectEarly();
    }

    /** @return whether the connection is open (for tests) */
    boolean isConnected() {
        return connector.isConnected();
    }

    /**
     * Starts a publisher. Give either {@link Builder#uri(String)} (optionally with your own
     * {@link Builder#client(RedisClient)}) or {@link Builder#connection(StatefulRedisConnection)}.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Adds every event of the batch to its stream, pipelined, and reports one outcome per event once
     * every reply arrived or the command timeout passed (unanswered events are then retries).
     *
     * @param batch the claimed events, never empty
     * @return a stage that always completes normally, with one outcome per event in batch order
     * @throws IllegalStateException when the publisher is closed
     */
    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        int n = batch.size();
        PublishOutcome[] outcomes = new PublishOutcome[n];
        List<AsyncCommand<byte[], byte[], String>> commands = new ArrayList<>(n);
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            ClaimedEvent event = batch.get(i);
            Route route = Route.naming(event, router, key -> key == null || key.isEmpty() ? noKey(event) : null);
            if (route.dead() != null) {
                outcomes[i] = route.dead();
                commands.add(null);
                continue;
            }
            keys[i] = route.destination();
            commands.add(xadd(route.destination(), event));
        }
        List<AsyncCommand<byte[], byte[], String>> toSend = new ArrayList<>(n);
        for (AsyncCommand<byte[], byte[], String> command : commands) {
            if (command != null) {
                toSend.add(command);
            }
        }
        if (toSend.isEmpty()) {
            return CompletableFuture.completedFuture(Arrays.asList(outcomes));
        }
        Sends.onceConnected(connector.connection(), toSend, connection -> send(connection, toSend));
        return Sends.settled(toSend, commandTimeout).thenApply(done -> collect(commands, keys, outcomes));
    }

    private CommandArgs<byte[], byte[]> args(String key, ClaimedEvent event) {
        CommandArgs<byte[], byte[]> args =
                new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(key.getBytes(StandardCharsets.UTF_8));
        if (maxLen > 0) {
            args.add("MAXLEN").add("~").add(maxLen);
        }
        args.add("*");
        args.add(PAYLOAD_FIELD_BYTES).addValue(event.payload());
        for (Map.Entry<String, String> header : MessageHeaders.of(event).entrySet()) {
            if (!PAYLOAD_FIELD.equals(header.getKey())) {
                args.add(header.getKey().getBytes(StandardCharsets.UTF_8))
                        .addValue(header.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return args;
    }

    /** @return the reason of an event the router gave an empty key */
    private static String noKey(ClaimedEvent event) {
        return "the router gave no stream key for event " + event.id() + " (aggregate type '" + event.aggregateType()
                + "')";
    }

    private AsyncCommand<byte[], byte[], String> xadd(String key, ClaimedEvent event) {
        return new AsyncCommand<>(
                new Command<>(CommandType.XADD, new StatusOutput<>(ByteArrayCodec.INSTANCE), args(key, event)));
    }

    private void send(StatefulRedisConnection<?, ?> connection, List<AsyncCommand<byte[], byte[], String>> toSend) {
        try {
            for (AsyncCommand<byte[], byte[], String> command : toSend) {
                RedisConnector.dispatch(connection, command);
            }
            if (connector.flushesManually()) {
                connection.flushCommands();
            }
        } catch (RuntimeException e) {
            // Lettuce usually fails the command itself; this covers a connection that throws instead.
            for (AsyncCommand<byte[], byte[], String> command : toSend) {
                command.completeExceptionally(e);
            }
        }
    }

    private List<PublishOutcome> collect(
            List<AsyncCommand<byte[], byte[], String>> commands, String[] keys, PublishOutcome[] outcomes) {
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] != null) {
                continue;
            }
            AsyncCommand<byte[], byte[], String> command = commands.get(i);
            if (!command.isDone()) {
                // Cancelled, it is not sent if it still waits in a buffer; if Redis already has it, the retry
                // adds a duplicate with the same event-id, which consumers drop.
                command.cancel();
                outcomes[i] = PublishOutcome.retry("no reply to XADD " + keys[i] + " within "
                        + commandTimeout.toMillis() + " ms from " + connector.target());
                continue;
            }
            outcomes[i] = RedisFailures.outcome(command, keys[i], connector.target());
        }
        return Arrays.asList(outcomes);
    }

    /**
     * Closes the connection and the client this publisher created, waiting a bounded time. A client or
     * connection you gave is left open. Idempotent.
     */
    @Override
    public void close() {
        connector.close();
    }

    @Override
    public String toString() {
        return "RedisStreamsPublisher[" + connector.target() + ", maxLen=" + (maxLen > 0 ? "~" + maxLen : "none")
                + ", commandTimeout=" + commandTimeout.toMillis() + " ms]";
    }

    /**
     * Builds a {@link RedisStreamsPublisher}. Every setting is checked at {@link #build()}, which throws
     * {@link OutboxValidationException} naming the setting and the value: the scalar settings ({@link
     * RedisSettings}) as they were given, {@code RedisStreamsPublisher.Builder.maxLen} from Java or the
     * spelling of the {@link #settings(RedisSettings)} a front end read. Not thread-safe.
     */
    public static final class Builder extends AbstractPublisherBuilder<Builder> {
        private String uri;
        private RedisURI redisUri;
        private RedisClient client;
        private StatefulRedisConnection<?, ?> connection;
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(RedisSettings.SETTINGS, RedisSettings.JAVA, "a Redis Streams publisher");

        private Builder() {}

        /**
         * @param uri where Redis listens, for example {@code redis://localhost:6379/0} or
         *     {@code rediss://:secret@redis.example:6380}; the password is masked in logs and errors
         * @return this builder
         */
        public Builder uri(String uri) {
            this.uri = uri;
            this.redisUri = null;
            return this;
        }

        /**
         * @param uri where Redis listens, as Lettuce's {@link RedisURI} (TLS, sentinel, credentials...)
         * @return this builder
         */
        public Builder uri(RedisURI uri) {
            this.redisUri = uri;
            this.uri = null;
            return this;
        }

        /**
         * Connects through a client you own, for its resources and options; the publisher opens and
         * closes a connection of its own on it, and never shuts the client down. Needs a {@link #uri}.
         *
         * @param client your Lettuce client
         * @return this builder
         */
        public Builder client(RedisClient client) {
            this.client = client;
            return this;
        }

        /**
         * Publishes on a connection you own, whatever its codec. The publisher never closes it and never
         * changes its auto-flush setting, so commands are flushed as that setting says. Excludes
         * {@link #uri} and {@link #client}.
         *
         * @param connection your open connection
         * @return this builder
         */
        public Builder connection(StatefulRedisConnection<?, ?> connection) {
            this.connection = connection;
            return this;
        }

        /**
         * @param keyPrefix put before every key the router gives, for example {@code outbox:} (default
         *     none; {@code null} or {@code ""} for none); an event's own destination is used as it is
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            return set(RedisSettings.KEY_PREFIX, keyPrefix);
        }

        /**
         * Trims each stream as it grows, with {@code XADD MAXLEN ~ maxLen}: Redis keeps at least
         * {@code maxLen} entries and removes old ones in whole internal nodes, so a stream may hold a
         * little more. Entries no consumer read yet are trimmed all the same.
         *
         * @param maxLen the approximate bound, at least 1; 0 (the default) trims nothing
         * @return this builder
         */
        public Builder maxLen(long maxLen) {
            return set(RedisSettings.MAX_LEN, maxLen);
        }

        /**
         * @param commandTimeout how long a batch waits for its replies (and for the connection);
         *     unanswered events are then retries (default 5 s). Keep it below the relay's publish timeout.
         * @return this builder
         */
        public Builder commandTimeout(Duration commandTimeout) {
            return set(RedisSettings.COMMAND_TIMEOUT, commandTimeout);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling, which {@link #build()} keeps), before customizations
         * in Java, which are named in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(RedisSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link RedisSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         * @throws IllegalArgumentException when {@code setting} is not a setting of a Redis Streams publisher
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Checks the settings and starts connecting (asynchronously): a Redis that is down then makes the
         * first batch a retry, and that batch connects again.
         *
         * @return the publisher
         * @throws OutboxValidationException naming a setting that is missing, out of bounds or
         *     contradicts another
         */
        public RedisStreamsPublisher build() {
            if (router() == null) {
                throw invalid("router", null, "RedisStreamsPublisher.Builder.router is missing");
            }
            RedisSettings settings = RedisSettings.of(given.values(), given.spelling());
            boolean hasUri = uri != null || redisUri != null;
            if (connection != null) {
                if (hasUri || client != null) {
                    throw invalid(
                            "connection",
                            null,
                            "RedisStreamsPublisher.Builder.connection excludes uri and client: give one way to"
                                    + " reach Redis");
                }
                return new RedisStreamsPublisher(settings, router(), RedisConnector.borrowed(connection));
            }
            if (!hasUri) {
                throw invalid(
                        "uri", null, "RedisStreamsPublisher.Builder.uri is missing (or give a connection of yours)");
            }
            RedisURI target = redisUri != null ? redisUri : parse(uri);
            return new RedisStreamsPublisher(
                    settings,
                    router(),
                    client != null
                            ? RedisConnector.onClient(client, target)
                            : RedisConnector.owned(target, settings.commandTimeout()));
        }

        private static RedisURI parse(String uri) {
            try {
                return RedisURI.create(uri);
            } catch (RuntimeException e) {
                throw invalid(
                        "uri",
                        null,
                        "RedisStreamsPublisher.Builder.uri '" + RedisConnector.mask(uri) + "' is not a Redis URI ("
                                + e.getClass().getSimpleName() + "); expected redis://[user:password@]host[:port][/db],"
                                + " rediss://... or redis-socket://path");
            }
        }

        private static OutboxValidationException invalid(String setting, String limit, String message) {
            return new OutboxValidationException(
                    "RedisStreamsPublisher.Builder." + setting, limit, Objects.requireNonNull(message));
        }
    }
}
