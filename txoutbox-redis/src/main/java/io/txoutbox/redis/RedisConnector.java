package io.txoutbox.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the one connection a publisher sends on, and knows what it owns: the client and its resources
 * (when built from a URI), the connection (when opened here), or nothing (a connection the user gave).
 * Connects when the publisher is built, and again after a failed connect; Lettuce reconnects an
 * established connection itself.
 */
final class RedisConnector {
    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(2);

    private final ClientResources ownedResources;
    private final RedisClient client;
    private final boolean ownsClient;
    private final RedisURI uri;
    private final StatefulRedisConnection<?, ?> borrowed;
    private final String target;
    private final ReentrantLock lock = new ReentrantLock();
    private CompletableFuture<StatefulRedisConnection<byte[], byte[]>> current;
    private boolean closed;

    private RedisConnector(
            ClientResources ownedResources,
            RedisClient client,
            boolean ownsClient,
            RedisURI uri,
            StatefulRedisConnection<?, ?> borrowed,
            String target) {
        this.ownedResources = ownedResources;
        this.client = client;
        this.ownsClient = ownsClient;
        this.uri = uri;
        this.borrowed = borrowed;
        this.target = target;
    }

    /** A client of our own: commands are rejected at once while disconnected, so a batch fails fast. */
    static RedisConnector owned(RedisURI uri, Duration commandTimeout) {
        ClientResources resources = DefaultClientResources.builder()
                // Lettuce's default grows to 30 s between reconnects: too long a pause after an outage.
                .reconnectDelay(
                        Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
                .build();
        RedisClient client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(commandTimeout)
                        .keepAlive(true)
                        .build())
                .build());
        return new RedisConnector(resources, client, true, uri, null, describe(uri));
    }

    static RedisConnector onClient(RedisClient client, RedisURI uri) {
        return new RedisConnector(null, client, false, uri, null, describe(uri));
    }

    static RedisConnector borrowed(StatefulRedisConnection<?, ?> connection) {
        return new RedisConnector(null, null, false, null, connection, "a connection of the application");
    }

    /** @return where commands go, with no credentials */
    String target() {
        return target;
    }

    /**
     * @return whether the publisher must flush after a batch: true on a connection opened here (auto-flush
     *     off, so a batch goes out in one write), false on a borrowed one (its setting is left alone)
     */
    boolean flushesManually() {
        return borrowed == null;
    }

    /**
     * @return the connection, connecting first if there is none or the last attempt failed
     * @throws IllegalStateException when closed
     */
    CompletableFuture<? extends StatefulRedisConnection<?, ?>> connection() {
        if (borrowed != null) {
            if (closed) {
                throw new IllegalStateException("RedisStreamsPublisher is closed");
            }
            return CompletableFuture.completedFuture(borrowed);
        }
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("RedisStreamsPublisher is closed");
            }
            CompletableFuture<StatefulRedisConnection<byte[], byte[]>> c = current;
            if (c == null
                    || c.isCompletedExceptionally()
                    || (c.isDone() && !c.join().isOpen())) {
                c = client.connectAsync(ByteArrayCodec.INSTANCE, uri)
                        .toCompletableFuture()
                        .thenApply(connection -> {
                            connection.setAutoFlushCommands(false);
                            log.debug("connected to {}", target);
                            return connection;
                        });
                current = c;
            }
            return c;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts the first connect now, so that the first batch does not pay for the connection set-up (in a
     * new JVM, Lettuce's first connect blocks its caller while it sets up its event loops); a Redis that
     * is down now is reached again by the next batch.
     */
    void connectEarly() {
        if (borrowed != null) {
            return;
        }
        connection().whenComplete((connection, error) -> {
            if (error != null) {
                log.warn("cannot connect to {} yet, the first batch tries again: {}", target, String.valueOf(error));
            }
        });
    }

    /** @return whether a connection of this connector is open (for tests) */
    boolean isConnected() {
        if (borrowed != null) {
            return borrowed.isOpen();
        }
        lock.lock();
        try {
            CompletableFuture<StatefulRedisConnection<byte[], byte[]>> c = current;
            return c != null
                    && c.isDone()
                    && !c.isCompletedExceptionally()
                    && c.join().isOpen();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends a command that carries its own codec on a connection of any codec: Lettuce encodes a command
     * with its arguments' codec and decodes the reply with its output's, never with the connection's.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void dispatch(StatefulRedisConnection<?, ?> connection, RedisCommand<byte[], byte[], ?> command) {
        ((StatefulRedisConnection) connection).dispatch(command);
    }

    /** Closes what was created here, with bounded waits; leaves a client or connection the user gave. */
    void close() {
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> c;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            c = current;
            current = null;
        } finally {
            lock.unlock();
        }
        if (c != null && !c.isDone()) {
            // A connect still in flight: close what it brings, whenever it does.
            c.thenAccept(StatefulRedisConnection::closeAsync);
        } else if (c != null && !c.isCompletedExceptionally()) {
            try {
                c.join().closeAsync().get(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                log.warn("closing the connection to {} did not finish: {}", target, e.toString());
            }
        }
        if (ownsClient) {
            client.shutdown(Duration.ZERO, SHUTDOWN_WAIT);
            ownedResources.shutdown(0, SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** @return the URI without credentials: scheme, host, port, database */
    static String describe(RedisURI uri) {
        if (uri.getSocket() != null) {
            return "redis-socket://" + uri.getSocket() + "/" + uri.getDatabase();
        }
        if (uri.getHost() == null && !uri.getSentinels().isEmpty()) {
            StringBuilder s = new StringBuilder("redis-sentinel://");
            for (int i = 0; i < uri.getSentinels().size(); i++) {
                RedisURI sentinel = uri.getSentinels().get(i);
                s.append(i == 0 ? "" : ",")
                        .append(sentinel.getHost())
                        .append(':')
                        .append(sentinel.getPort());
            }
            return s.append('/')
                    .append(uri.getDatabase())
                    .append("#")
                    .append(uri.getSentinelMasterId())
                    .toString();
        }
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }

    /** @return a URI string with any user information (user, password) replaced by {@code ***} */
    static String mask(String uri) {
        if (uri == null) {
            return null;
        }
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        return at < start ? uri : uri.substring(0, start) + "***" + uri.substring(at);
    }
}
