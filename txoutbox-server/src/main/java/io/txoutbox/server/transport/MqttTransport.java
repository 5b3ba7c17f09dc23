package io.txoutbox.server.transport;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;
import io.txoutbox.mqtt.MqttPublisher;
import io.txoutbox.mqtt.MqttSettings;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.Secret;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * {@code transport: {mqtt: ...}}: QoS 1 (or 2) publishes acknowledged by the broker, through {@code
 * txoutbox-mqtt}.
 *
 * <pre>
 * mqtt:
 *   server-uri: ssl://mqtt.internal:8883    # required; tcp://host:1883, ws://, wss://
 *   username: relay
 *   password: ${MQTT_PASSWORD}
 *   qos: 1                                  # 1 (default) or 2
 *   topic-prefix: outbox/                   # order events go to outbox/order
 *   client-id: orders-relay                 # default txoutbox + random hex
 *   format: envelope                        # or raw
 *   completion-timeout: 5s
 *   keep-alive: 30s
 *   max-inflight: 1000
 * </pre>
 *
 * <p>{@code client-id}, {@code topic-prefix}, {@code qos}, {@code completion-timeout}, {@code keep-alive},
 * {@code format} and {@code max-inflight} are the library's settings ({@link MqttSettings}), read through
 * their descriptors and refused by its rules under their keys; where to connect (the server URI), the login
 * and the routing are the server's to read.
 */
final class MqttTransport {

    private MqttTransport() {}

    static Transports.Spec parse(ConfigNode s) {
        String serverUri = s.string("server-uri", null);
        String username = s.string("username", null);
        Secret password = s.secret("password");
        MqttSettings checked;
        try {
            checked = MqttSettings.of(SettingReader.values(s, MqttSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        int qos = checked.qos();
        String prefix = checked.topicPrefix().isEmpty() ? null : checked.topicPrefix();
        Transports.Routing routing = Transports.Routing.parse(s, "topic");
        String key = s.path();
        String target = serverUri == null ? "(no server-uri)" : Redaction.redact(serverUri);
        // The builder's own refusals left are of where to connect (server URI, credentials): named by their keys.
        Transports.Keys keys = Transports.Keys.of(s, Map.of("credentials", "username"));
        return new Transports.Spec("mqtt", key) {
            @Override
            public String describe() {
                return "mqtt " + target + (username == null ? "" : " as " + username) + ", qos "
                        + qos + ", " + (prefix == null ? "" : "prefix '" + prefix + "' + ")
                        + routing.description();
            }

            @Override
            public Publisher open() {
                MqttPublisher.Builder b =
                        MqttPublisher.builder().settings(checked).router(routing.router());
                ConfigNode.ifGiven(serverUri, b::serverUri);
                if (username != null || password != null) {
                    b.credentials(
                            username, password == null ? null : password.value().toCharArray());
                }
                return keys.build(b::build);
            }

            /**
             * Connects and disconnects with a client id of its own, so that a check never pushes a running
             * relay's connection off the broker (MQTT allows one connection per client id).
             */
            @Override
            public String check(Duration timeout) throws Exception {
                if (serverUri == null) {
                    throw new ConfigException(key + ".server-uri", "is required: tcp://host:1883 or ssl://host:8883");
                }
                String id = "txoutbox-check-"
                        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
                MqttConnectOptions options = new MqttConnectOptions();
                options.setCleanSession(true);
                options.setAutomaticReconnect(false);
                options.setConnectionTimeout((int) Math.max(1, (timeout.toMillis() + 999) / 1000));
                ConfigNode.ifGiven(username, options::setUserName);
                if (password != null) {
                    options.setPassword(password.value().toCharArray());
                }
                try (MqttClient client = new MqttClient(serverUri, id, new MemoryPersistence())) {
                    client.setTimeToWait(timeout.toMillis());
                    client.connect(options);
                    client.disconnect();
                    return "MQTT broker at " + target;
                }
            }
        };
    }
}
