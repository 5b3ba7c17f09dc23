package io.txoutbox.server.transport;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.redis.RedisSettings;
import io.txoutbox.redis.RedisStreamsPublisher;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
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
 *   command-timeout: 5s                    # how long a batch waits for its replies
 * </pre>
 *
 * <p>{@code stream-prefix}, {@code max-len} and {@code command-timeout} are the library's settings ({@link
 * RedisSettings}), read through their descriptors and refused under their keys; where Redis is, the login
 * and the routing are the server's to read.
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
        RedisSettings checked;
        try {
            checked = RedisSettings.of(SettingReader.values(s, RedisSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        Transports.Routing routing = Transports.Routing.parse(s, "stream");
        String key = s.path();
        String target = uri == null ? "(no uri)" : Redaction.redact(uri);
        return new Transports.Spec("redis", key) {
            @Override
            public String describe() {
                String prefix = checked.keyPrefix();
                return "redis " + target + ", " + (prefix.isEmpty() ? "" : "prefix '" + prefix + "' + ")
                        + routing.description() + (checked.maxLen() == 0 ? "" : ", MAXLEN ~" + checked.maxLen());
            }

            @Override
            public Publisher open() {
                RedisStreamsPublisher.Builder b =
                        RedisStreamsPublisher.builder().settings(checked).router(routing.router());
                if (password != null) {
                    b.uri(redisUri());
                } else {
                    ConfigNode.ifGiven(uri, b::uri);
                }
                try {
                    return b.build();
                } catch (OutboxValidationException ex) {
                    throw refused(ex);
                } catch (RuntimeException ex) {
                    // The client failing to start, say: the section's, as before.
                    throw new ConfigException(
                            key, ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage(), ex);
                }
            }

            /**
             * A refusal of a setting names its key already; the builder's other refusals are of where Redis
             * is (missing, or not a Redis URI), the uri's key's.
             */
            private ConfigException refused(OutboxValidationException ex) {
                if (ex.field() != null && ex.field().startsWith(key + ".")) {
                    return ConfigException.refused(ex);
                }
                return new ConfigException(key + ".uri", ex.getMessage(), ex);
            }

            /** Connects once and sends {@code PING}. */
            @Override
            public String check(Duration timeout) {
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
