package io.txoutbox.server;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.txoutbox.Redaction;
import io.txoutbox.redis.RedisStreamsPublisher;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code transport: {redis: ...}}: one {@code XADD} per event, through {@code txoutbox-redis}.
 *
 * <pre>
 * redis:
 *   uri: redis://redis.internal:6379/0     # required; rediss:// for TLS
 *   password: ${REDIS_PASSWORD}            # optional (and username: for an ACL user)
 *   stream-prefix: outbox:                 # order events go to the stream outbox:order
 *   max-len: 100000                        # XADD MAXLEN ~ 100000
 * </pre>
 */
final class RedisTransport {

    private RedisTransport() {}

    static Transports.Spec parse(ConfigNode s) {
        String uri = s.string("uri", null);
        String username = s.string("username", null);
        Secret password = s.secret("password");
        if (username != null && password == null) {
            throw new ConfigException(s.key("password"), "is required with username");
        }
        String prefix = s.string("stream-prefix", null);
        Long maxLen = s.optionalLong("max-len");
        Duration commandTimeout = s.duration("command-timeout", null);
        Transports.Routing routing = Transports.Routing.parse(s, "stream");
        String key = s.path();
        String target = uri == null ? "(no uri)" : Redaction.redact(uri);
        Transports.Keys keys = Transports.Keys.of(s, Map.of("keyPrefix", "stream-prefix"));
        return new Transports.Spec("redis", key) {
            @Override
            String describe() {
                return "redis " + target + ", " + (prefix == null ? "" : "prefix '" + prefix + "' + ")
                        + routing.description() + (maxLen == null ? "" : ", MAXLEN ~" + maxLen);
            }

            @Override
            Publisher open() {
                RedisStreamsPublisher.Builder b =
                        RedisStreamsPublisher.builder().router(routing.router());
                ConfigNode.ifGiven(prefix, b::keyPrefix);
                ConfigNode.ifGiven(maxLen, b::maxLen);
                ConfigNode.ifGiven(commandTimeout, b::commandTimeout);
                return keys.build(() -> {
                    if (password != null) {
                        b.uri(redisUri());
                    } else {
                        ConfigNode.ifGiven(uri, b::uri);
                    }
                    return b.build();
                });
            }

            /** Connects once and sends {@code PING}. */
            @Override
            String check(Duration timeout) {
                RedisURI target = redisUri();
                target.setTimeout(timeout);
                RedisClient client = RedisClient.create(target);
                try {
                    client.setOptions(ClientOptions.builder()
                            .autoReconnect(false)
                            .socketOptions(SocketOptions.builder()
                                    .connectTimeout(timeout)
                                    .build())
                            .build());
                    try (StatefulRedisConnection<String, String> c = client.connect()) {
                        String pong = c.sync().ping();
                        return "Redis at " + RedisTransport.target(target) + " (PING: " + pong + ")";
                    }
                } finally {
                    client.shutdown(0, 2, TimeUnit.SECONDS);
                }
            }

            private RedisURI redisUri() {
                if (uri == null) {
                    throw new ConfigException(key + ".uri", "is required: redis://host:6379 or rediss://host:6380");
                }
                RedisURI r;
                try {
                    r = RedisURI.create(uri);
                } catch (RuntimeException e) {
                    throw new ConfigException(
                            key + ".uri",
                            "'" + Redaction.redact(uri) + "' is not a Redis URI (redis://host:6379/0, rediss://..., "
                                    + "redis-socket://path)");
                }
                if (password != null) {
                    if (username != null) {
                        r.setAuthentication(username, password.value());
                    } else {
                        r.setAuthentication(password.value());
                    }
                }
                return r;
            }
        };
    }

    private static String target(RedisURI uri) {
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }
}
