package io.txoutbox.server.transport;

import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.http;
import static io.txoutbox.server.TestSupport.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.txoutbox.harness.jms.ArtemisBroker;
import io.txoutbox.harness.sqs.ElasticMqServer;
import io.txoutbox.jms.JmsHeaders;
import io.txoutbox.server.PsqlRows;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.sqs.SqsMessages;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The SQS and JMS transports end to end: one server started from one YAML file routes events by type
 * to ElasticMQ (a FIFO queue named by prefix and aggregate type, and a standard queue given by URL in
 * the {@code queues} map) and to an embedded ActiveMQ Artemis broker (by broker URL, and through a
 * {@code ConnectionFactory} named by class and set up by its properties); rows are inserted with the
 * real {@code psql}; each broker's own client reads the message back with the same event id, headers
 * and payload bytes. Secrets come from {@code ${ENV}} and show nowhere. {@code run --check} reaches
 * every route, and names the ones it cannot reach.
 */
class SqsAndJmsTransportsTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_sqsjms");
    private static final String SQS_PREFIX = ElasticMqServer.newQueueName("txoutbox-srv-") + "-";
    private static final String JMS_PREFIX = ArtemisBroker.newName("txoutbox-srv-") + ".";
    private static final String JMS_FIXED = ArtemisBroker.newName("txoutbox-srv-fixed-");
    private static final String JMS_PASSWORD = "not-a-real-jms-secret-xyz";
    /** Not UTF-8, not JSON: bytes must pass through untouched. */
    @TempDir
    static Path dir;

    static ElasticMqServer sqs;
    static ArtemisBroker artemis;
    static String fifoUrl;
    static String mappedUrl;
    static Map<String, String> env;
    static Path config;
    static RelayServer server;

    static String yaml(String sqsEndpoint, String artemisUrl) {
        return TestSupport.HEAD
                + TestSupport.brokerSource("sqsjms", TABLE)
                + """
                    routes:
                      - name: sqs-fifo
                        types: ["s.*"]
                        transport:
                          sqs:
                            region: %s
                            endpoint: %s
                            access-key-id: ${TEST_SQS_KEY}
                            secret-access-key: ${TEST_SQS_SECRET}
                            queue-prefix: %s
                            fifo: true
                      - name: sqs-mapped
                        types: ["q.*"]
                        transport:
                          sqs:
                            region: %s
                            endpoint: %s
                            access-key-id: ${TEST_SQS_KEY}
                            secret-access-key: ${TEST_SQS_SECRET}
                            route-by: event-type
                            queues:
                              q.placed: %s
                      - name: jms-artemis
                        types: ["j.*"]
                        transport:
                          jms:
                            broker-url: %s
                            username: relay
                            password: ${TEST_JMS_PASSWORD}
                            destination-prefix: %s
                      - name: jms-by-class
                        types: ["t.*"]
                        transport:
                          jms:
                            connection-factory:
                              class: org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory
                              properties:
                                brokerURL: %s
                                callTimeout: 3000
                            destination: queue://%s
                            sessions: 2
                """.formatted(
                                ElasticMqServer.REGION,
                                sqsEndpoint,
                                SQS_PREFIX,
                                ElasticMqServer.REGION,
                                sqsEndpoint,
                                mappedUrl,
                                artemisUrl,
                                JMS_PREFIX,
                                artemisUrl,
                                JMS_FIXED);
    }

    @BeforeAll
    static void start() throws Exception {
        sqs = ElasticMqServer.start();
        artemis = ArtemisBroker.start();
        fifoUrl = sqs.createFifoQueue(SQS_PREFIX + "order.fifo");
        mappedUrl = sqs.createQueue(SQS_PREFIX + "mapped");
        env = Map.of(
                "TEST_SQS_KEY", ElasticMqServer.ACCESS_KEY,
                "TEST_SQS_SECRET", ElasticMqServer.SECRET_KEY,
                "TEST_JMS_PASSWORD", JMS_PASSWORD);
        config = TestSupport.write(dir, "sqsjms.yaml", yaml(sqs.endpoint(), artemis.brokerUrl()));
        server = RelayServer.start(ConfigLoader.load(config, env::get));
    }

    @AfterAll
    static void stop() {
        TestSupport.cleanUp(TABLE, artemis, sqs, server);
    }

    private static software.amazon.awssdk.services.sqs.model.Message receiveOne(String url) {
        List<software.amazon.awssdk.services.sqs.model.Message> got = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            got.addAll(sqs.receiveAll(url));
            return !got.isEmpty();
        });
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    @Test
    void sqs_fifo_route_delivers_the_psql_row_to_the_prefixed_fifo_queue_with_its_id_headers_and_payload()
            throws Exception {
        UUID id = PsqlRows.insert(TABLE, "s.placed");
        software.amazon.awssdk.services.sqs.model.Message m = receiveOne(fifoUrl);
        PsqlRows.assertDelivered(SqsMessages.headersOf(m), SqsMessages.payloadOf(m), id, "s.placed");
        assertThat(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
                .isEqualTo("o-42");
        assertThat(m.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID))
                .isEqualTo(id.toString());
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void sqs_route_with_a_queue_map_delivers_the_psql_row_to_the_mapped_queue_url() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "q.placed");
        software.amazon.awssdk.services.sqs.model.Message m = receiveOne(mappedUrl);
        PsqlRows.assertDelivered(SqsMessages.headersOf(m), SqsMessages.payloadOf(m), id, "q.placed");
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void jms_route_delivers_the_psql_row_to_the_prefixed_artemis_queue_persistently() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "j.placed");
        Message m = receiveJms(JMS_PREFIX + "order");
        assertThat(m.getStringProperty(JmsHeaders.EVENT_ID_PROPERTY)).isEqualTo(id.toString());
        assertThat(m.getJMSDeliveryMode()).isEqualTo(jakarta.jms.DeliveryMode.PERSISTENT);
        PsqlRows.assertDelivered(JmsHeaders.headersOf(m), JmsHeaders.payloadOf(m), id, "j.placed");
        PsqlRows.awaitGone(TABLE, id);
    }

    @Test
    void jms_route_through_a_connection_factory_named_by_class_delivers_to_its_fixed_queue() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "t.placed");
        Message m = receiveJms(JMS_FIXED);
        PsqlRows.assertDelivered(JmsHeaders.headersOf(m), JmsHeaders.payloadOf(m), id, "t.placed");
        PsqlRows.awaitGone(TABLE, id);
    }

    private static Message receiveJms(String queue) throws Exception {
        try (Connection c = artemis.factory(true).createConnection()) {
            c.start();
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            Message m = consumer.receive(20_000);
            assertThat(m).as("a message on " + queue).isNotNull();
            assertThat(consumer.receive(200)).as("one message only").isNull();
            return m;
        }
    }

    @Test
    void the_api_describes_each_route_without_secrets_and_metrics_count_them() throws Exception {
        UUID id = PsqlRows.insert(TABLE, "j.counted");
        PsqlRows.awaitGone(TABLE, id);
        String base = "http://127.0.0.1:" + server.port();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(route(
                                http("GET", base + "/api/sources/sqsjms/stats", TOKEN, null)
                                        .json(),
                                "jms-artemis")
                        .path("published")
                        .asLong())
                .isPositive());
        JsonNode stats =
                http("GET", base + "/api/sources/sqsjms/stats", TOKEN, null).json();
        assertThat(stats.path("routes")).hasSize(4);
        // The access key id sits under a credential's key (access-key-id), so the one redaction path masks it
        // in every answer, as it does the secret key.
        assertThat(route(stats, "sqs-fifo").path("target").asText())
                .isEqualTo("sqs " + sqs.endpoint() + " (region " + ElasticMqServer.REGION + "), access key ****"
                        + ", prefix '" + SQS_PREFIX + "' + queue by aggregate type, FIFO");
        assertThat(route(stats, "jms-artemis").path("target").asText())
                .isEqualTo("jms ActiveMQ Artemis " + artemis.brokerUrl() + " as relay, prefix '" + JMS_PREFIX
                        + "' + destination by aggregate type, bare names are queues");
        assertThat(route(stats, "jms-by-class").path("target").asText())
                .isEqualTo("jms org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory [brokerURL,"
                        + " callTimeout], destination 'queue://" + JMS_FIXED + "', bare names are queues");
        assertThat(stats.toString()).doesNotContain(ElasticMqServer.SECRET_KEY).doesNotContain(JMS_PASSWORD);

        String metrics = http("GET", base + "/metrics", null, null).body();
        assertThat(metrics)
                .containsPattern("txoutbox_route_events_total\\{[^}]*outcome=\"published\"[^}]*route=\"jms-artemis\""
                        + "[^}]*source=\"sqsjms\"[^}]*transport=\"jms\"[^}]*} [1-9]")
                .containsPattern("txoutbox_route_failing\\{[^}]*route=\"sqs-fifo\"[^}]*transport=\"sqs\"[^}]*} 0");
    }

    @Test
    void check_reaches_sqs_and_the_jms_broker_and_changes_nothing() throws Exception {
        TestSupport.CliResult r = TestSupport.cli(env, "run", "--check", "--config", config.toString());
        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("routes[0].transport.sqs (route 'sqs-fifo', types [s.*]): OK: SQS at " + sqs.endpoint())
                .contains("2 queue(s) named " + SQS_PREFIX + "*")
                .contains("routes[1].transport.sqs (route 'sqs-mapped', types [q.*]): OK: SQS at")
                .contains("queue(s) [" + mappedUrl + "] exist")
                .contains("routes[2].transport.jms (route 'jms-artemis', types [j.*]): OK: JMS provider ActiveMQ")
                .contains("connection started")
                .contains("routes[3].transport.jms (route 'jms-by-class', types [t.*]): OK: JMS provider")
                .contains("check OK: 1 source(s), 4 route(s)");
        assertThat(r.out() + r.err()).doesNotContain(ElasticMqServer.SECRET_KEY).doesNotContain(JMS_PASSWORD);
    }

    @Test
    void check_names_the_sqs_and_jms_routes_it_cannot_reach_and_exits_2() throws Exception {
        int closed = TestSupport.freePort();
        Path bad = TestSupport.write(
                dir,
                "unreachable.yaml",
                yaml(ElasticMqServer.endpoint("127.0.0.1", closed), "tcp://127.0.0.1:" + closed));
        TestSupport.CliResult r = TestSupport.cli(env, "run", "--check", "--config", bad.toString());
        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.out())
                .contains("routes[0].transport.sqs (route 'sqs-fifo', types [s.*]): FAILED:")
                .contains("routes[1].transport.sqs (route 'sqs-mapped', types [q.*]): FAILED:")
                .contains("routes[2].transport.jms (route 'jms-artemis', types [j.*]): FAILED:")
                .contains("routes[3].transport.jms (route 'jms-by-class', types [t.*]): FAILED:")
                .contains("check failed: 4 problem(s); nothing was changed");
        assertThat(r.err())
                .contains("configuration error: sources[0].routes[0].transport.sqs: cannot reach sqs http://127.0.0.1:"
                        + closed);
        assertThat(r.out() + r.err()).doesNotContain(ElasticMqServer.SECRET_KEY).doesNotContain(JMS_PASSWORD);
    }
}
