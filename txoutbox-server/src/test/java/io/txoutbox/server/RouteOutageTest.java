package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.http;
import static io.txoutbox.server.TestSupport.psql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.txoutbox.harness.kafka.KafkaBroker;
import io.txoutbox.harness.kafka.SharedKafka;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.test.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One YAML, two routes, two brokers: {@code order.*} events go to Kafka (through the test kit's TCP
 * proxy, in front of the broker's advertised {@code PROXIED} listener, so every connection of the
 * producer passes through it) and {@code audit.*} events to Redis. Kafka is cut off while events of both
 * kinds keep coming: the Redis route's events still flow, each published once (none waited for Kafka's
 * timeouts and was sent again), and once Kafka is back every one of its own events arrives.
 */
@ExtendWith(SharedKafka.class)
class RouteOutageTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_outage");
    private static final String RUN = TestSupport.randomHex();
    private static final String TOPIC_PREFIX = "txoutbox-outage-" + RUN + ".";
    private static final String STREAM_PREFIX = "txoutbox-outage-" + RUN + ":";
    private static final int EACH = 30;

    static TcpProxy proxy;
    static RelayServer server;
    static RedisClient redis;

    @BeforeAll
    static void start() throws Exception {
        KafkaBroker kafka = SharedKafka.broker();
        kafka.createTopic(TOPIC_PREFIX + "order", 1);
        proxy = new TcpProxy(
                kafka.proxyPort(), "127.0.0.1", kafka.proxiedTarget().getPort());
        redis = RedisClient.create("redis://127.0.0.1:6379");
        String yaml = TestSupport.HEAD
                + """
                  - name: split
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    relay:
                      batch-size: 10
                      poll-interval: 200ms
                      publish-timeout: 4s
                      lease-duration: 20s
                      max-attempts: 100
                      backoff: {base: 200ms, max: 2s}
                    routes:
                      - name: orders-to-kafka
                        types: ["order.*"]
                        transport:
                          kafka:
                            bootstrap-servers: 127.0.0.1:%d
                            topic-prefix: %s
                            request-timeout: 2s
                            delivery-timeout: 3s
                      - name: audit-to-redis
                        types: ["audit.*"]
                        transport:
                          redis:
                            uri: redis://127.0.0.1:6379
                            stream-prefix: "%s"
                """.formatted(
                        TestSupport.PG_URL, TestSupport.PG_USER, TABLE, proxy.port(), TOPIC_PREFIX, STREAM_PREFIX);
        server = TestSupport.start(yaml);
    }

    @AfterAll
    static void stop() {
        TestSupport.cleanUp(TABLE, proxy, server);
        if (redis != null) {
            try (StatefulRedisConnection<String, String> c = redis.connect()) {
                c.sync().del(STREAM_PREFIX + "audit");
            }
            redis.shutdown();
        }
        SharedKafka.broker().deleteTopic(TOPIC_PREFIX + "order");
    }

    /** Inserts {@code n} events of each type, interleaved so that every batch mixes both routes. */
    private static void insertBoth(String tag, int n) throws Exception {
        psql("INSERT INTO " + TABLE + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " SELECT gen_random_uuid(), CASE WHEN i % 2 = 0 THEN 'order' ELSE 'audit' END, '" + tag
                + "-' || i, CASE WHEN i % 2 = 0 THEN 'order.placed' ELSE 'audit.logged' END,"
                + " convert_to('{\"i\":' || i || '}', 'UTF8') FROM generate_series(0, " + (2 * n - 1) + ") i");
    }

    private static List<String> redisIds() {
        try (StatefulRedisConnection<String, String> c = redis.connect()) {
            List<String> ids = new ArrayList<>();
            for (StreamMessage<String, String> m : c.sync().xrange(STREAM_PREFIX + "audit", Range.create("-", "+"))) {
                ids.add(m.getBody().get("aggregate-id"));
            }
            return ids;
        }
    }

    private static long pending(String type) {
        return count("SELECT count(*) FROM " + TABLE + " WHERE event_type = '" + type + "'");
    }

    @Test
    void an_outage_of_one_broker_holds_back_only_its_own_route_and_loses_none_of_its_events() throws Exception {
        // Both routes work: the producer has its connections (through the proxy) before the outage.
        insertBoth("warm", 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> pending("order.placed") + pending("audit.logged") == 0);

        proxy.cut();
        insertBoth("cut", EACH);

        // The Redis route's events flow while Kafka is unreachable...
        await().atMost(Duration.ofSeconds(60)).until(() -> pending("audit.logged") == 0);
        List<String> audits = redisIds();
        Set<String> expected = new HashSet<>();
        for (int i = 1; i < 2 * EACH; i += 2) {
            expected.add("cut-" + i);
        }
        assertThat(audits).filteredOn(a -> a.startsWith("cut-")).containsExactlyInAnyOrderElementsOf(expected);
        // ...each exactly once: no batch waited for Kafka until the relay gave up on it and sent it again.
        assertThat(audits).doesNotHaveDuplicates();
        // ...while every Kafka event is still in the table, none dead, and the route says it is failing.
        assertThat(pending("order.placed")).isEqualTo(EACH);
        assertThat(count("SELECT count(*) FROM " + TABLE + " WHERE status = 'dead'"))
                .isZero();
        // The Redis route's part is marked as soon as Redis confirms, before the Kafka part reaches its
        // route deadline: wait for the Kafka route to count its first retry.
        String stats = "http://127.0.0.1:" + server.port() + "/api/sources/split/stats";
        await().atMost(Duration.ofSeconds(60))
                .until(() -> http("GET", stats, TOKEN, null)
                                .json()
                                .path("routes")
                                .get(0)
                                .path("retried")
                                .asLong()
                        > 0);
        JsonNode routes = http("GET", stats, TOKEN, null).json().path("routes");
        JsonNode kafkaRoute = routes.get(0);
        JsonNode redisRoute = routes.get(1);
        assertThat(kafkaRoute.path("name").asText()).isEqualTo("orders-to-kafka");
        assertThat(kafkaRoute.path("retried").asLong()).isPositive();
        assertThat(kafkaRoute.path("lastError").asText()).isNotBlank();
        assertThat(redisRoute.path("name").asText()).isEqualTo("audit-to-redis");
        assertThat(redisRoute.path("retried").asLong()).isZero();

        proxy.restore();
        // Kafka is back: every one of its events arrives (a re-publish may duplicate, never lose).
        await().atMost(Duration.ofSeconds(90)).until(() -> pending("order.placed") == 0);
        Set<String> orders = kafkaAggregateIds();
        for (int i = 0; i < 2 * EACH; i += 2) {
            assertThat(orders).contains("cut-" + i);
        }
        assertThat(count("SELECT count(*) FROM " + TABLE)).isZero();
    }

    private static Set<String> kafkaAggregateIds() {
        Set<String> ids = new HashSet<>();
        TopicPartition p = new TopicPartition(TOPIC_PREFIX + "order", 0);
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaReads.fromBeginning(p, "txoutbox-outage-" + RUN)) {
            long end = consumer.endOffsets(List.of(p)).get(p);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    ids.add(new String(r.key(), StandardCharsets.UTF_8));
                }
                return consumer.position(p) >= end;
            });
        }
        return ids;
    }
}
