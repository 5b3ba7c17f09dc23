package io.txoutbox.server.transport;

import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.http;
import static io.txoutbox.server.TestSupport.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.txoutbox.harness.kafka.KafkaBroker;
import io.txoutbox.harness.kafka.SharedKafka;
import io.txoutbox.mqtt.MqttEnvelope;
import io.txoutbox.server.KafkaReads;
import io.txoutbox.server.PsqlRows;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.config.ConfigLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every bundled broker transport, end to end: one server started from one YAML file routes events by
 * type to Kafka, RabbitMQ, NATS JetStream, Redis Streams and MQTT; rows are inserted with the real
 * {@code psql}; each broker's own client reads the message back with the same event id, headers and
 * payload bytes.
 */
@ExtendWith(SharedKafka.class)
class BrokerTransportsTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_brokers");
    private static final String RUN = TestSupport.randomHex();
    private static final String KAFKA_PREFIX = "txoutbox-srv-" + RUN + ".";
    private static final String RABBIT_QUEUE = "txoutbox-srv-" + RUN;
    private static final String NATS_PREFIX = "txoutbox-srv-" + RUN + ".";
    private static final String NATS_STREAM = "TXOUTBOX_SRV_" + RUN.toUpperCase();
    private static final String REDIS_PREFIX = "txoutbox-srv-" + RUN + ":";
    private static final String MQTT_PREFIX = "txoutbox-srv-" + RUN + "/";
    /** Not UTF-8, not JSON: bytes must pass through untouched. */
    @TempDir
    static Path dir;

    static Path config;
    static RelayServer server;
    static ConnectionFactory rabbit;
    static Connection nats;
    static RedisClient redis;
    static MqttClient mqtt;
    static final Map<String, byte[]> mqttReceived = new ConcurrentHashMap<>();

    static String yaml() {
        KafkaBroker kafka = SharedKafka.broker();
        return TestSupport.HEAD
                + TestSupport.brokerSource("brokers", TABLE)
                + """
                    routes:
                      - types: ["k.*"]
                        transport:
                          kafka:
                            bootstrap-servers: [%s]
                            topic-prefix: %s
                            producer:
                              compression.type: lz4
                      - types: ["r.*"]
                        transport:
                          rabbitmq:
                            host: 127.0.0.1
                            username: guest
                            password: ${TEST_RABBIT_PASSWORD:-guest}
                            destination: %s
                      - types: ["n.*"]
                        transport:
                          nats:
                            servers: nats://127.0.0.1:4222
                            subject-prefix: %s
                      - types: ["d.*"]
                        transport:
                          redis:
                            uri: redis://127.0.0.1:6379
                            stream-prefix: "%s"
                            max-len: 1000
                      - types: ["m.*"]
                        transport:
                          mqtt:
                            server-uri: tcp://127.0.0.1:1883
                            topic-prefix: %s
                            qos: 1
                """.formatted(
                        kafka.bootstrapServers(), KAFKA_PREFIX, RABBIT_QUEUE, NATS_PREFIX, REDIS_PREFIX, MQTT_PREFIX);
    }

    @BeforeAll
    static void start() throws Exception {
        SharedKafka.broker().createTopic(KAFKA_PREFIX + "order", 1);
        rabbit = new ConnectionFactory();
        rabbit.setHost("127.0.0.1");
        try (com.rabbitmq.client.Connection c = rabbit.newConnection();
                Channel ch = c.createChannel()) {
            ch.queueDeclare(RABBIT_QUEUE, false, false, false, null);
        }
        nats = Nats.connect("nats://127.0.0.1:4222");
        nats.jetStreamManagement()
                .addStream(StreamConfiguration.builder()
                        .name(NATS_STREAM)
                        .subjects(NATS_PREFIX + ">")
                        .storageType(StorageType.Memory)
                        .build());
        redis = RedisClient.create("redis://127.0.0.1:6379");
        // MQTT keeps nothing for a topic nobody subscribed to: subscribe before anything is published.
        mqtt = new MqttClient("tcp://127.0.0.1:1883", "txoutbox-srv-test-" + RUN, new MemoryPersistence());
        MqttConnectOptions o = new MqttConnectOptions();
        o.setCleanSession(true);
        mqtt.connect(o);
        mqtt.subscribe(MQTT_PREFIX + "#", 1, (topic, message) -> mqttReceived.put(topic, message.getPayload()));

        config = TestSupport.write(dir, "brokers.yaml", yaml());
        server = RelayServer.start(ConfigLoader.load(config, System.getenv()::get));
    }

    @AfterAll
    static void stop() throws Exception {
        TestSupport.cleanUp(TABLE, server);
        if (mqtt != null) {
            mqtt.disconnect();
            mqtt.close();
        }
        if (redis != null) {
            try (StatefulRedisConnection<String, String> c = redis.connect()) {
                List<String> keys = c.sync().keys(REDIS_PREFIX + "*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(String[]::new));
                }
            }
            redis.shutdown();
        }
        if (nats != null) {
            nats.jetStreamManagement().deleteStream(NATS_STREAM);
            nats.close();
        }
        if (rabbit != null) {
            try (com.rabbitmq.client.Connection c = rabbit.newConnection();
                    Channel ch = c.createChannel()) {
                ch.queueDelete(RABBIT_QUEUE);
            }
        }
        SharedKafka.broker().deleteTopic(KAFKA_PREFIX + "order");
    }

    @Test
    void kafka_route_delivers_the_psql_row_with_its_id_headers_and_payload() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "k.placed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                KafkaReads.fromBeginning(new TopicPartition(KAFKA_PREFIX + "order", 0), "txoutbox-srv-" + RUN)) {
            AtomicReference<ConsumerRecord<byte[], byte[]>> found = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (id.toString().equals(header(r, "event-id"))) {
                        found.set(r);
                    }
                }
                return found.get() != null;
            });
            ConsumerRecord<byte[], byte[]> r = found.get();
            Map<String, String> headers = new java.util.HashMap<>();
            r.headers().forEach(h -> headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
            PsqlRows.assertDelivered(headers, r.value(), id, "k.placed");
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("o-42");
        }
        PsqlRows.awaitGone(TABLE, id);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void rabbitmq_route_delivers_the_psql_row_with_its_id_headers_and_payload() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "r.placed");
        try (com.rabbitmq.client.Connection c = rabbit.newConnection();
                Channel ch = c.createChannel()) {
            GetResponse[] got = new GetResponse[1];
            await().atMost(Duration.ofSeconds(20)).until(() -> (got[0] = ch.basicGet(RABBIT_QUEUE, true)) != null);
            assertThat(got[0].getProps().getMessageId()).isEqualTo(id.toString());
            Map<String, String> headers = new java.util.HashMap<>();
            got[0].getProps().getHeaders().forEach((k, v) -> headers.put(k, String.valueOf(v)));
            PsqlRows.assertDelivered(headers, got[0].getBody(), id, "r.placed");
        }
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void nats_route_delivers_the_psql_row_with_its_id_headers_and_payload() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "n.placed");
        JetStreamManagement jsm = nats.jetStreamManagement();
        MessageInfo[] got = new MessageInfo[1];
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            try {
                got[0] = jsm.getLastMessage(NATS_STREAM, NATS_PREFIX + "order");
                return got[0] != null;
            } catch (io.nats.client.JetStreamApiException notYet) {
                return false;
            }
        });
        Map<String, String> headers = new java.util.HashMap<>();
        got[0].getHeaders().forEach((k, v) -> headers.put(k, v.get(0)));
        PsqlRows.assertDelivered(headers, got[0].getData(), id, "n.placed");
        assertThat(got[0].getHeaders().getFirst("Nats-Msg-Id")).isEqualTo(id.toString());
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void redis_route_delivers_the_psql_row_with_its_id_headers_and_payload() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "d.placed");
        try (StatefulRedisConnection<String, byte[]> c =
                redis.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE))) {
            AtomicReference<List<StreamMessage<String, byte[]>>> got = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                got.set(c.sync().xrange(REDIS_PREFIX + "order", Range.create("-", "+")));
                return !got.get().isEmpty();
            });
            assertThat(got.get()).hasSize(1);
            Map<String, byte[]> body = got.get().get(0).getBody();
            Map<String, String> headers = new java.util.HashMap<>();
            body.forEach((k, v) -> headers.put(k, new String(v, StandardCharsets.UTF_8)));
            PsqlRows.assertDelivered(headers, body.get("payload"), id, "d.placed");
        }
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void mqtt_route_delivers_the_psql_row_with_its_id_headers_and_payload() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "m.placed");
        await().atMost(Duration.ofSeconds(20)).until(() -> mqttReceived.containsKey(MQTT_PREFIX + "order"));
        MqttEnvelope envelope = MqttEnvelope.decode(mqttReceived.get(MQTT_PREFIX + "order"));
        PsqlRows.assertDelivered(envelope.headers(), envelope.payload(), id, "m.placed");
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void metrics_and_the_api_show_what_each_route_did() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "k.counted");
        PsqlRows.awaitGone(TABLE, id);
        String base = "http://127.0.0.1:" + server.port();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode kafka = route(
                    http("GET", base + "/api/sources/brokers/stats", TOKEN, null)
                            .json(),
                    "kafka");
            assertThat(kafka.path("published").asLong()).isPositive();
        });
        JsonNode stats =
                http("GET", base + "/api/sources/brokers/stats", TOKEN, null).json();
        JsonNode kafka = route(stats, "kafka");
        assertThat(kafka.path("transport").asText()).isEqualTo("kafka");
        assertThat(kafka.path("failing").asBoolean()).isFalse();
        assertThat(kafka.path("target").asText()).contains(SharedKafka.broker().bootstrapServers());
        assertThat(stats.path("routes")).hasSize(5);
        assertThat(route(stats, "rabbitmq").path("target").asText())
                .isEqualTo("rabbitmq amqp://127.0.0.1:5672 as guest, exchange '', routing key '" + RABBIT_QUEUE + "'");
        assertThat(stats.toString()).doesNotContain("password");

        String metrics = http("GET", base + "/metrics", null, null).body();
        assertThat(metrics)
                .containsPattern("txoutbox_route_events_total\\{[^}]*outcome=\"published\"[^}]*route=\"kafka\""
                        + "[^}]*source=\"brokers\"[^}]*transport=\"kafka\"[^}]*} [1-9]")
                .containsPattern("txoutbox_route_publish_duration_seconds_count\\{[^}]*route=\"redis\"")
                .containsPattern("txoutbox_route_failing\\{[^}]*route=\"mqtt\"[^}]*} 0")
                .contains("txoutbox_route_failures_total");
    }

    @Test
    void check_reaches_every_broker_and_changes_nothing() throws Exception {
        TestSupport.CliResult r = TestSupport.cli(Map.of(), "run", "--check", "--config", config.toString());
        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("transport.kafka (route 'kafka', types [k.*]): OK: Kafka cluster of 1 broker(s)")
                .contains("transport.rabbitmq (route 'rabbitmq', types [r.*]): OK: RabbitMQ")
                .contains("transport.nats (route 'nats', types [n.*]): OK: NATS JetStream")
                .contains("transport.redis (route 'redis', types [d.*]): OK: Redis at")
                .contains("transport.mqtt (route 'mqtt', types [m.*]): OK: MQTT broker")
                .contains("check OK: 1 source(s), 5 route(s)");
    }
}
