package io.txoutbox.server;

import io.txoutbox.Redaction;
import io.txoutbox.mqtt.MqttPublisher;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
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
 * </pre>
 */
final class MqttTransport {

    private MqttTransport() {}

    static Transports.Spec parse(ConfigNode s) {
        String serverUri = s.string("server-uri", null);
        String clientId = s.string("client-id", null);
        String username = s.string("username", null);
        Secret password = s.secret("password");
        Integer qos = s.optionalInteger("qos");
        String prefix = s.string("topic-prefix", null);
        Duration completionTimeout = s.duration("completion-timeout", null);
        Duration keepAlive = s.duration("keep-alive", null);
        Integer maxInflight = s.optionalInteger("max-inflight");
        String formatText = s.string("format", null);
        MqttPublisher.Format format = null;
        if (formatText != null) {
            format = switch (formatText.strip().toLowerCase(Locale.ROOT)) {
                case "envelope" -> MqttPublisher.Format.ENVELOPE;
                case "raw" -> MqttPublisher.Format.RAW;
                default ->
                    throw new ConfigException(s.key("format"), "expected envelope or raw, got '" + formatText + "'");
            };
        }
        MqttPublisher.Format chosenFormat = format;
        Transports.Routing routing = Transports.Routing.parse(s, "topic");
        String key = s.path();
        String target = serverUri == null ? "(no server-uri)" : Redaction.redact(serverUri);
        Transports.Keys keys = Transports.Keys.of(s, Map.of("credentials", "username"));
        return new Transports.Spec("mqtt", key) {
            @Override
            String describe() {
                return "mqtt " + target + (username == null ? "" : " as " + username) + ", qos "
                        + (qos == null ? 1 : qos) + ", " + (prefix == null ? "" : "prefix '" + prefix + "' + ")
                        + routing.description();
            }

            @Override
            Publisher open() {
                MqttPublisher.Builder b = MqttPublisher.builder().router(routing.router());
                ConfigNode.ifGiven(serverUri, b::serverUri);
                ConfigNode.ifGiven(clientId, b::clientId);
                if (username != null || password != null) {
                    b.credentials(
                            username, password == null ? null : password.value().toCharArray());
                }
                ConfigNode.ifGiven(qos, b::qos);
                ConfigNode.ifGiven(prefix, b::topicPrefix);
                ConfigNode.ifGiven(completionTimeout, b::completionTimeout);
                ConfigNode.ifGiven(keepAlive, b::keepAlive);
                ConfigNode.ifGiven(maxInflight, b::maxInflight);
                ConfigNode.ifGiven(chosenFormat, b::format);
                return keys.build(b::build);
            }

            /**
             * Connects and disconnects with a client id of its own, so that a check never pushes a running
             * relay's connection off the broker (MQTT allows one connection per client id).
             */
            @Override
            String check(Duration timeout) throws Exception {
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
