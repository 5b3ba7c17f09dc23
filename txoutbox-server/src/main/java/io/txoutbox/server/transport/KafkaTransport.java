package io.txoutbox.server.transport;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.kafka.KafkaPublisher;
import io.txoutbox.kafka.KafkaSettings;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.server.yaml.ConfigNode;
import io.txoutbox.server.yaml.SettingReader;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;

/**
 * {@code transport: {kafka: ...}}: an idempotent producer through {@code txoutbox-kafka}.
 *
 * <pre>
 * kafka:
 *   bootstrap-servers: broker-1:9092,broker-2:9092   # or a list
 *   topic-prefix: prod.                              # optional
 *   route-by: aggregate-type                         # or event-type; or destination: one-topic
 *   request-timeout: 5s
 *   delivery-timeout: 8s                             # at least request-timeout + linger.ms
 *   producer:                                        # any producer property (values may be ${ENV})
 *     security.protocol: SASL_SSL
 *     sasl.jaas.config: ${KAFKA_JAAS}
 * </pre>
 *
 * <p>{@code topic-prefix}, {@code request-timeout} and {@code delivery-timeout} are the library's settings
 * ({@link KafkaSettings}), read through their descriptors and refused by its rules under their keys; where
 * to connect (the bootstrap servers), the producer properties and the routing are the server's to read.
 */
final class KafkaTransport {

    private KafkaTransport() {}

    static Transports.Spec parse(ConfigNode s) {
        List<String> servers = s.strings("bootstrap-servers");
        String bootstrap = servers.isEmpty() ? null : String.join(",", servers);
        KafkaSettings checked;
        try {
            checked = KafkaSettings.of(SettingReader.values(s, KafkaSettings.SETTINGS), Spelling.keys(s.path()));
        } catch (OutboxValidationException ex) {
            throw ConfigException.refused(ex);
        }
        String prefix = checked.topicPrefix();
        Transports.Routing routing = Transports.Routing.parse(s, "topic");
        Map<String, String> producer = s.stringMap("producer");
        String key = s.path();
        String target = bootstrap != null ? bootstrap : producer.getOrDefault("bootstrap.servers", "(no address)");
        // The builder's own refusals left are of where to connect and of the producer: named by their keys.
        Transports.Keys keys = Transports.Keys.of(s, Map.of("producerProperties", "producer"));
        return new Transports.Spec("kafka", key) {
            @Override
            public String describe() {
                // Property names only: their values may hold credentials (sasl.jaas.config, ssl.*.password).
                return "kafka " + target + ", " + (prefix == null ? "" : "prefix '" + prefix + "' + ")
                        + routing.description() + (producer.isEmpty() ? "" : ", producer " + producer.keySet());
            }

            @Override
            public Publisher open() {
                KafkaPublisher.Builder b =
                        KafkaPublisher.builder().settings(checked).router(routing.router());
                ConfigNode.ifGiven(bootstrap, b::bootstrapServers);
                try {
                    b.producerProperties(producer);
                    return b.build();
                } catch (OutboxValidationException e) {
                    String field = e.field();
                    // A refusal of the settings (a delivery timeout too short) names them by their keys.
                    if (field != null && field.startsWith(key + ".")) {
                        throw ConfigException.refused(e);
                    }
                    // Kafka's own property names (acks, enable.idempotence...) are keys under producer:.
                    if (field != null && !field.startsWith("KafkaPublisher.")) {
                        throw new ConfigException(key + ".producer." + field, e.getMessage(), e);
                    }
                    throw keys.refused(e);
                }
            }

            /** Asks the cluster for its brokers with an admin client of the producer's settings. */
            @Override
            public String check(Duration timeout) throws Exception {
                Map<String, Object> config = new HashMap<>();
                // The producer's security and client settings apply to the admin client too; the others
                // (linger.ms, acks...) mean nothing to it and would only be logged as unused.
                for (Map.Entry<String, String> p : producer.entrySet()) {
                    if (AdminClientConfig.configNames().contains(p.getKey())) {
                        config.put(p.getKey(), p.getValue());
                    }
                }
                if (bootstrap != null) {
                    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                }
                int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
                config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
                config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
                config.put(AdminClientConfig.CLIENT_ID_CONFIG, "txoutbox-check");
                try (Admin admin = Admin.create(config)) {
                    Collection<Node> nodes = admin.describeCluster().nodes().get(millis, TimeUnit.MILLISECONDS);
                    return "Kafka cluster of " + nodes.size() + " broker(s) at " + target;
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new java.util.concurrent.TimeoutException(
                            "no answer from Kafka at " + target + " within " + millis + " ms");
                }
            }
        };
    }
}
