package io.txoutbox.server.transport;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.AccountStatistics;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.nats.NatsPublisher;
import io.txoutbox.nats.NatsSettings;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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
 *   publish-timeout: 5s                                  # also the connect timeout
 *   connection-name: txoutbox
 * </pre>
 *
 * <p>{@code subject-prefix}, {@code publish-timeout} and {@code connection-name} are the library's
 * settings ({@link NatsSettings}), read through their descriptors and refused under their keys here; the
 * servers, the login and the routing are the server's to read.
 */
final class NatsTransport {
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
        NatsSettings checked;
        try {
            checked = NatsSettings.of(SettingReader.values(s, NatsSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        Transports.Routing routing = Transports.Routing.parse(s, "subject");
        String target = String.join(",", servers.stream().map(Redaction::redact).toList());
        return new NatsSpec(s.path(), checked) {
            @Override
            public String describe() {
                String prefix = checked.subjectPrefix();
                return "nats " + target + (username == null ? "" : " as " + username) + ", "
                        + (prefix.isEmpty() ? "" : "prefix '" + prefix + "' + ") + routing.description();
            }

            @Override
            public Publisher open() {
                // An outbox relay outlives any outage: reconnect forever, as the publisher does with server(...).
                Options options = options(checked.publishTimeout(), -1);
                try {
                    return NatsPublisher.builder()
                            .settings(checked)
                            .options(options)
                            .router(routing.router())
                            .build();
                } catch (OutboxValidationException ex) {
                    // A setting is refused under its key already: the builder was given them as read here.
                    throw ConfigException.refused(ex);
                } catch (IllegalArgumentException ex) {
                    throw new ConfigException(key(), ex.getMessage(), ex);
                }
            }

            /** Connects once (no reconnect) and reads the JetStream account: no JetStream, no relay. */
            @Override
            public String check(Duration timeout) throws Exception {
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
                    throw new ConfigException(key() + ".servers", "is not a list of NATS URLs like nats://host:4222");
                }
                o.connectionName(checked.connectionName())
                        .maxReconnects(maxReconnects)
                        .connectionTimeout(timeout);
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

    /** A NATS transport's settings, the library's among them as checked when the YAML was read. */
    abstract static class NatsSpec extends Transports.Spec {
        private final NatsSettings settings;

        /**
         * @param key the key of its settings, e.g. {@code sources[0].routes[1].transport.nats}
         * @param settings the library's settings, checked
         */
        NatsSpec(String key, NatsSettings settings) {
            super("nats", key);
            this.settings = settings;
        }

        /** @return the library's settings, as read and checked */
        NatsSettings settings() {
            return settings;
        }
    }
}
