package io.txoutbox.server.transport;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.rabbitmq.RabbitPublisher;
import io.txoutbox.rabbitmq.RabbitSettings;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@code transport: {rabbitmq: ...}}: publisher confirms and mandatory routing, through {@code
 * txoutbox-rabbitmq}.
 *
 * <pre>
 * rabbitmq:
 *   host: rabbit.internal          # required
 *   port: 5672                     # default 5672, 5671 with tls
 *   virtual-host: /
 *   username: orders
 *   password: ${RABBIT_PASSWORD}
 *   exchange: events               # must exist; default "" (the routing key names a queue)
 *   route-by: aggregate-type       # the routing key; or destination: one-key
 *   tls: true                      # or {trust-store: file.p12, trust-store-password: ..., verify-hostname: true}
 *   confirm-timeout: 5s
 *   connection-name: txoutbox
 * </pre>
 *
 * <p>{@code exchange}, {@code confirm-timeout} and {@code connection-name} are the library's settings
 * ({@link RabbitSettings}), read through their descriptors and refused by its rules under their keys; where
 * to connect (host, port, virtual host, credentials, TLS) and the routing are the server's to read.
 */
final class RabbitTransport {

    private RabbitTransport() {}

    /** TLS settings: the JVM's trust store unless a file is given. */
    private record Tls(Path trustStore, Secret trustStorePassword, String trustStoreType, boolean verifyHostname) {}

    static Transports.Spec parse(ConfigNode s) {
        // No implicit localhost: a relay that silently publishes to the wrong broker loses nothing visibly.
        String host = s.requiredString("host");
        Integer port = s.optionalInteger("port");
        String vhost = s.string("virtual-host", null);
        String username = s.string("username", null);
        Secret password = s.secret("password");
        if (password != null && username == null) {
            throw new ConfigException(s.key("username"), "is required with password");
        }
        if (username != null && password == null) {
            throw new ConfigException(
                    s.key("password"), "is required with username (e.g. password: ${RABBIT_PASSWORD})");
        }
        RabbitSettings checked;
        try {
            checked = RabbitSettings.of(SettingReader.values(s, RabbitSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        String exchange = checked.exchange();
        Transports.Routing routing = Transports.Routing.parse(s, "routing key");
        Tls tls = tls(s);
        String key = s.path();
        String target = host + ":" + (port != null ? port : tls != null ? 5671 : 5672) + (vhost == null ? "" : vhost);
        // The builder's own refusals left are of where to connect (port, host, credentials): named by their keys.
        Transports.Keys keys = Transports.Keys.of(s, Map.of("credentials", "username"));
        return new Transports.Spec("rabbitmq", key) {
            @Override
            public String describe() {
                return "rabbitmq " + (tls != null ? "amqps://" : "amqp://") + target
                        + (username == null ? "" : " as " + username) + ", exchange '" + exchange + "', "
                        + routing.description();
            }

            @Override
            public Publisher open() {
                RabbitPublisher.Builder b =
                        RabbitPublisher.builder().settings(checked).router(routing.router());
                return keys.build(() -> {
                    if (tls != null) {
                        b.connectionFactory(factory());
                    } else {
                        b.host(host);
                        ConfigNode.ifGiven(port, b::port);
                        ConfigNode.ifGiven(vhost, b::virtualHost);
                        if (username != null) {
                            b.credentials(username, password.value());
                        }
                    }
                    return b.build();
                });
            }

            /** Opens a connection and, for a named exchange, checks passively that it exists. */
            @Override
            public String check(Duration timeout) throws Exception {
                ConnectionFactory f = factory();
                int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
                f.setConnectionTimeout(millis);
                f.setHandshakeTimeout(millis);
                f.setChannelRpcTimeout(millis);
                f.setAutomaticRecoveryEnabled(false);
                try (Connection c = f.newConnection("txoutbox-check")) {
                    if (exchange.isEmpty()) {
                        return "RabbitMQ " + c.getServerProperties().getOrDefault("version", "") + " at " + target
                                + " (default exchange)";
                    }
                    try (Channel ch = c.createChannel()) {
                        ch.exchangeDeclarePassive(exchange);
                    } catch (java.io.IOException e) {
                        throw new java.io.IOException(
                                "exchange '" + exchange + "' cannot be used: " + Transports.reason(e), e);
                    }
                    return "RabbitMQ at " + target + ", exchange '" + exchange + "' exists";
                }
            }

            /** The connection factory the TLS settings need (and the check uses either way). */
            private ConnectionFactory factory() {
                ConnectionFactory f = new ConnectionFactory();
                f.setHost(host);
                ConfigNode.ifGiven(vhost, f::setVirtualHost);
                if (username != null) {
                    f.setUsername(username);
                    f.setPassword(password.value());
                }
                if (tls != null) {
                    try {
                        f.useSslProtocol(sslContext(tls));
                    } catch (GeneralSecurityException | java.io.IOException e) {
                        throw new ConfigException(key + ".tls", "cannot set up TLS: " + Transports.reason(e), e);
                    }
                    if (tls.verifyHostname()) {
                        f.enableHostnameVerification();
                    }
                }
                ConfigNode.ifGiven(port, f::setPort);
                return f;
            }
        };
    }

    private static Tls tls(ConfigNode s) {
        if (!s.has("tls")) {
            return null;
        }
        if (s.isScalar("tls")) {
            return s.bool("tls", false) ? new Tls(null, null, null, true) : null;
        }
        ConfigNode t = s.object("tls");
        String store = t.string("trust-store", null);
        Secret storePassword = t.secret("trust-store-password");
        String type = t.string("trust-store-type", "PKCS12");
        boolean verify = t.bool("verify-hostname", true);
        t.rejectUnknown();
        if (store != null && !Files.isReadable(Path.of(store))) {
            throw new ConfigException(t.key("trust-store"), "file " + store + " cannot be read");
        }
        return new Tls(store == null ? null : Path.of(store), storePassword, type, verify);
    }

    private static SSLContext sslContext(Tls tls) throws GeneralSecurityException, java.io.IOException {
        if (tls.trustStore() == null) {
            return SSLContext.getDefault();
        }
        KeyStore store = KeyStore.getInstance(tls.trustStoreType());
        try (InputStream in = Files.newInputStream(tls.trustStore())) {
            store.load(
                    in,
                    tls.trustStorePassword() == null
                            ? null
                            : tls.trustStorePassword().value().toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
