package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.cli;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A broker transport configured wrong stops {@code txoutbox run} at start-up, exit code 2, with a
 * message that names the YAML key: a missing address, an unknown key, a value of the wrong type, and a
 * value the transport's library refuses (its rule, mapped to the key, not checked again here).
 */
class TransportConfigErrorTest {
    @TempDir
    Path dir;

    private static String yaml(String transport) {
        return """
                admin:
                  port: 0
                  token: %s
                sources:
                  - name: orders
                    jdbc-url: %s
                    user: %s
                    table: srv_never_created
                    routes:
                      - types: ["*"]
                        transport:
                          %s
                """.formatted(TestSupport.TOKEN, TestSupport.PG_URL, TestSupport.PG_USER, transport);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            kafka missing address   | kafka: {topic-prefix: x.}                                     | transport.kafka.bootstrap-servers: KafkaPublisher.bootstrapServers is missing
            kafka unknown key       | kafka: {bootstrap-servers: 'h:9092', topic_prefix: x.}        | transport.kafka.topic_prefix: unknown key; known keys here: bootstrap-servers, topic-prefix
            kafka wrong type        | kafka: {bootstrap-servers: 'h:9092', delivery-timeout: soon}  | transport.kafka.delivery-timeout: expected a duration such as 500ms
            kafka refused property  | kafka: {bootstrap-servers: 'h:9092', producer: {acks: '0'}}   | transport.kafka.producer.acks: KafkaPublisher.producerProperties acks=0 contradicts
            kafka refused timeouts  | kafka: {bootstrap-servers: 'h:9092', delivery-timeout: 1s}    | transport.kafka.delivery-timeout: KafkaPublisher.deliveryTimeout 1000 ms is shorter than requestTimeout
            rabbitmq missing host   | rabbitmq: {exchange: events}                                  | transport.rabbitmq.host: is required
            rabbitmq unknown key    | rabbitmq: {host: h, exchnage: events}                         | transport.rabbitmq.exchnage: unknown key
            rabbitmq wrong type     | rabbitmq: {host: h, port: five}                               | transport.rabbitmq.port: expected an integer, got 'five'
            rabbitmq refused port   | rabbitmq: {host: h, port: 70000}                              | transport.rabbitmq.port: RabbitPublisher.Builder.port must be 1-65535, not 70000
            rabbitmq half login     | rabbitmq: {host: h, username: relay}                          | transport.rabbitmq.password: is required with username
            nats missing servers    | nats: {subject-prefix: events.}                               | transport.nats.servers: is required
            nats unknown key        | nats: {servers: 'nats://h:4222', subject_prefix: events.}     | transport.nats.subject_prefix: unknown key
            nats wrong type         | nats: {servers: 'nats://h:4222', publish-timeout: [1, 2]}     | transport.nats.publish-timeout: expected a single value, got a list
            nats refused prefix     | nats: {servers: 'nats://h:4222', subject-prefix: 'a b.'}      | transport.nats.subject-prefix: NatsPublisher.Builder.subjectPrefix 'a b.' does not make a valid subject
            redis missing uri       | redis: {stream-prefix: 'outbox:'}                             | transport.redis.uri: RedisStreamsPublisher.Builder.uri is missing
            redis unknown key       | redis: {uri: 'redis://h:6379', maxlen: 10}                    | transport.redis.maxlen: unknown key
            redis wrong type        | redis: {uri: 'redis://h:6379', max-len: lots}                 | transport.redis.max-len: expected an integer, got 'lots'
            redis refused max-len   | redis: {uri: 'redis://h:6379', max-len: -5}                   | transport.redis.max-len: RedisStreamsPublisher.Builder.maxLen is -5
            redis overflow          | redis: {uri: 'redis://h:6379', max-len: 99999999999999999999} | transport.redis.max-len: '99999999999999999999' is too large
            mqtt missing uri        | mqtt: {qos: 1}                                                | transport.mqtt.server-uri: MqttPublisher.Builder.serverUri is missing
            mqtt unknown key        | mqtt: {server-uri: 'tcp://h:1883', QoS: 1}                    | transport.mqtt.QoS: unknown key
            mqtt wrong type         | mqtt: {server-uri: 'tcp://h:1883', qos: high}                 | transport.mqtt.qos: expected an integer, got 'high'
            mqtt refused qos        | mqtt: {server-uri: 'tcp://h:1883', qos: 0}                    | transport.mqtt.qos: MqttPublisher.Builder.qos is 0
            mqtt bad format         | mqtt: {server-uri: 'tcp://h:1883', format: xml}               | transport.mqtt.format: expected envelope or raw, got 'xml'
            routing contradiction   | redis: {uri: 'redis://h:6379', route-by: event-type, destination: s} | transport.redis.destination: give route-by or destination, not both
            unknown route-by        | nats: {servers: 'nats://h:4222', route-by: tenant}            | transport.nats.route-by: expected aggregate-type or event-type, got 'tenant'
            """)
    void bad_transport_configuration_stops_the_start_naming_the_key(String name, String transport, String expected)
            throws Exception {
        Path config = TestSupport.write(dir, "bad.yaml", yaml(transport));
        // A real start (not a check), bounded by --duration in case it were accepted.
        TestSupport.CliResult r = cli(Map.of(), "run", "--config", config.toString(), "--duration", "1");
        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).contains("configuration error: sources[0].routes[0]." + expected);
    }
}
