package io.txoutbox.server;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AccountStatistics;
import io.txoutbox.Redaction;
import io.txoutbox.nats.NatsPublisher;
import io.txoutbox.spi.Publisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code transport: {nats: ...}}: JetStream publishes acknowledged by a stream, through {@code
 * txoutbox-nats}.
 *
 * <pre>
 * nats:
 *   servers: [nats://nats-1:4222, nats://nats-2:4222]   # required; tls://host:4222 for TLS
 *   username: relay                                       # or token:, or credentials-file: (NKey/JWT)
 *   password: ${NATS_PASSWORD}
 *   subject-prefix: events.                              # order events go to events.order
 * </pre>
 */
final class NatsTransport {
    private static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(5);

    private NatsTransport() {}

    static Transports.Spec parse(ConfigNode s) {
        List<String> servers = s.strings("servers");
        if (servers.isEmpty() || servers.stream().anyMatch(String::isBlank)) {
            throw new ConfigException(s.key("servers"), "is required: one or more URLs such as nats://host:4222");
        }
        String username = s.string("username", null);
        Secret password = s.secret("password");
        Secret token = s.secret("token");
        String credentials = s.string("credentials-file", null);
        int auths = (username != null || password != null ? 1 : 0)
                + (token != null ? 1 : 0)
                + (credentials != null ? 1 : 0);
        if (auths > 1) {
            throw new ConfigException(
                    s.key("token"), "give one way to log in: username and password, token, or credentials-file");
        }
        if ((username == null) != (password == null)) {
            throw new ConfigException(s.key(username == null ? "username" : "password"), "is required with the other");
        }
        if (credentials != null && !Files.isReadable(Path.of(credentials))) {
            throw new ConfigException(s.key("credentials-file"), "file " + credentials + " cannot be read");
        }
        String prefix = s.string("subject-prefix", null);
        Transports.Routing routing = Transports.Routing.parse(s, "subject");
        Duration publishTimeout = s.duration("publish-timeout", null);
        String connectionName = s.string("connection-name", "txoutbox");
        String key = s.path();
        String target = String.join(",", servers.stream().map(Redaction::redact).toList());
        Transports.Keys keys = Transports.Keys.of(s, Map.of("server", "servers", "options", "servers"));
        return new Transports.Spec("nats", key) {
            @Override
            String describe() {
                return "nats " + target + (username == null ? "" : " as " + username) + ", "
                        + (prefix == null ? "" : "prefix '" + prefix + "' + ") + routing.description();
            }

            @Override
            Publisher open() {
                Duration timeout = publishTimeout != null ? publishTimeout : DEFAULT_PUBLISH_TIMEOUT;
                // An outbox relay outlives any outage: reconnect forever, as the publisher does with server(...).
                Options options = options(timeout, -1);
                NatsPublisher.Builder b = NatsPublisher.builder()
                        .options(options)
                        .router(routing.router())
                        .connectionName(connectionName);
                ConfigNode.ifGiven(prefix, b::subjectPrefix);
                ConfigNode.ifGiven(publishTimeout, b::publishTimeout);
                return keys.build(b::build);
            }

            /** Connects once (no reconnect) and reads the JetStream account: no JetStream, no relay. */
            @Override
            String check(Duration timeout) throws Exception {
                Connection c = Nats.connect(options(timeout, 0));
                try {
                    AccountStatistics stats = c.jetStreamManagement().getAccountStatistics();
                    return "NATS JetStream at " + Redaction.redact(c.getConnectedUrl()) + " (" + stats.getStreams()
                            + " stream(s) in the account)";
                } finally {
                    c.close();
                }
            }

            private Options options(Duration timeout, int maxReconnects) {
                Options.Builder o;
                try {
                    o = Options.builder().servers(servers.toArray(String[]::new));
                } catch (IllegalArgumentException e) {
                    // Not the client's message: it may quote a URL with its password.
                    throw new ConfigException(key + ".servers", "is not a list of NATS URLs like nats://host:4222");
                }
                o.connectionName(connectionName).maxReconnects(maxReconnects).connectionTimeout(timeout);
                if (username != null) {
                    o.userInfo(username, password.value());
                } else if (token != null) {
                    o.token(token.value().toCharArray());
                } else if (credentials != null) {
                    o.authHandler(Nats.credentials(credentials));
                }
                return o.build();
            }
        };
    }
}
