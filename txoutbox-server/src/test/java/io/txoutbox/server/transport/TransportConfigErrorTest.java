package io.txoutbox.server.transport;

import static io.txoutbox.server.TestSupport.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.server.TestSupport;
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
        return TestSupport.oneRoute(transport);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            kafka missing address   | kafka: {topic-prefix: x.}                                     | transport.kafka.bootstrap-servers: KafkaPublisher.bootstrapServers is missing
            kafka unknown key       | kafka: {bootstrap-servers: 'h:9092', topic_prefix: x.}        | transport.kafka.topic_prefix: unknown key; known keys here: bootstrap-servers, topic-prefix
            kafka wrong type        | kafka: {bootstrap-servers: 'h:9092', delivery-timeout: soon}  | transport.kafka.delivery-timeout: expected a duration such as 500ms
            kafka refused property  | kafka: {bootstrap-servers: 'h:9092', producer: {acks: '0'}}   | transport.kafka.producer.acks: KafkaPublisher.producerProperties acks=0 contradicts
            kafka refused timeouts  | kafka: {bootstrap-servers: 'h:9092', delivery-timeout: 1s}    | transport.kafka.delivery-timeout: 1000 ms is shorter than sources[0].routes[0].transport.kafka.request-timeout 5000 ms
            rabbitmq missing host   | rabbitmq: {exchange: events}                                  | transport.rabbitmq.host: is required
            rabbitmq unknown key    | rabbitmq: {host: h, exchnage: events}                         | transport.rabbitmq.exchnage: unknown key
            rabbitmq wrong type     | rabbitmq: {host: h, port: five}                               | transport.rabbitmq.port: expected an integer, got 'five'
            rabbitmq refused port   | rabbitmq: {host: h, port: 70000}                              | transport.rabbitmq.port: RabbitPublisher.Builder.port must be 1-65535, not 70000
            rabbitmq half login     | rabbitmq: {host: h, username: relay}                          | transport.rabbitmq.password: is required with username
            nats missing servers    | nats: {subject-prefix: events.}                               | transport.nats.servers: is required
            nats unknown key        | nats: {servers: 'nats://h:4222', subject_prefix: events.}     | transport.nats.subject_prefix: unknown key
            nats wrong type         | nats: {servers: 'nats://h:4222', publish-timeout: [1, 2]}     | transport.nats.publish-timeout: expected a single value, got a list
            nats refused prefix     | nats: {servers: 'nats://h:4222', subject-prefix: 'a b.'}      | transport.nats.subject-prefix: is 'a b.'; it must start a subject NATS can publish to
            redis missing uri       | redis: {stream-prefix: 'outbox:'}                             | transport.redis.uri: RedisStreamsPublisher.Builder.uri is missing
            redis unknown key       | redis: {uri: 'redis://h:6379', maxlen: 10}                    | transport.redis.maxlen: unknown key
            redis wrong type        | redis: {uri: 'redis://h:6379', max-len: lots}                 | transport.redis.max-len: expected an integer, got 'lots'
            redis refused max-len   | redis: {uri: 'redis://h:6379', max-len: -5}                   | transport.redis.max-len: is -5; it must be between 0 and 1099511627776
            redis overflow          | redis: {uri: 'redis://h:6379', max-len: 99999999999999999999} | transport.redis.max-len: '99999999999999999999' is too large
            mqtt missing uri        | mqtt: {qos: 1}                                                | transport.mqtt.server-uri: MqttPublisher.Builder.serverUri is missing
            mqtt unknown key        | mqtt: {server-uri: 'tcp://h:1883', QoS: 1}                    | transport.mqtt.QoS: unknown key
            mqtt wrong type         | mqtt: {server-uri: 'tcp://h:1883', qos: high}                 | transport.mqtt.qos: expected an integer, got 'high'
            mqtt refused qos        | mqtt: {server-uri: 'tcp://h:1883', qos: 0}                    | transport.mqtt.qos: is 0; it must be 1 or 2 (QoS 0 is never acknowledged, so no publish could be confirmed)
            mqtt bad format         | mqtt: {server-uri: 'tcp://h:1883', format: xml}               | transport.mqtt.format: expected one of envelope, raw, got 'xml'
            sqs missing region      | sqs: {queue-prefix: prod-}                                    | transport.sqs.region: is required
            sqs unknown key         | sqs: {region: eu-west-1, queue_prefix: prod-}                 | transport.sqs.queue_prefix: unknown key; known keys here: region, endpoint
            sqs wrong type          | sqs: {region: eu-west-1, max-message-bytes: big}              | transport.sqs.max-message-bytes: expected an integer, got 'big'
            sqs refused size        | sqs: {region: eu-west-1, max-message-bytes: 100}              | transport.sqs.max-message-bytes: is 100; it must be between 1024 and 1048576
            sqs refused prefix      | sqs: {region: eu-west-1, queue-prefix: prod.}                 | transport.sqs.queue-prefix: is 'prod.'; it must start a queue name
            sqs refused endpoint    | sqs: {region: eu-west-1, endpoint: 'ftp://h:21'}              | transport.sqs.endpoint: SqsPublisher.Builder.endpoint must be an http or https URL
            sqs half credentials    | sqs: {region: eu-west-1, access-key-id: AKIDEXAMPLE}          | transport.sqs.secret-access-key: is required with access-key-id
            sqs fifo url            | sqs: {region: eu-west-1, fifo: true, destination: 'https://sqs.eu-west-1.amazonaws.com/1/orders'} | transport.sqs.destination: with fifo: true the queue URL must name a FIFO queue
            sqs queues and destination | sqs: {region: eu-west-1, destination: q, queues: {order: o}} | transport.sqs.queues: give queues (a queue per route) or destination (one queue), not both
            jms missing address     | jms: {destination-type: topic}                                | transport.jms.broker-url: is required: tcp://host:61616 for ActiveMQ Artemis, or connection-factory
            jms unknown key         | jms: {broker-url: 'tcp://h:61616', destination_type: topic}   | transport.jms.destination_type: unknown key
            jms bad url             | jms: {broker-url: 'nope://h:61616'}                           | transport.jms.broker-url: 'nope://h:61616' is not an ActiveMQ Artemis URL (tcp://host:61616, (tcp://a:61616,tcp://b:61616)?ha=true, ...): Schema nope not found
            jms wrong type          | jms: {broker-url: 'tcp://h:61616', sessions: many}            | transport.jms.sessions: expected an integer, got 'many'
            jms bad destination type | jms: {broker-url: 'tcp://h:61616', destination-type: mailbox} | transport.jms.destination-type: expected one of queue, topic, got 'mailbox'
            jms refused sessions    | jms: {broker-url: 'tcp://h:61616', sessions: 100}             | transport.jms.sessions: is 100; it must be between 1 and 64
            jms refused async send  | jms: {broker-url: 'tcp://h:61616', async-send: true}          | transport.jms.async-send: JmsPublisher.Builder.asyncSend: ActiveMQ Artemis completes asynchronous sends
            jms half login          | jms: {broker-url: 'tcp://h:61616', username: relay}           | transport.jms.password: is required with username
            jms two providers       | jms: {broker-url: 'tcp://h:61616', connection-factory: {class: x.Y}} | transport.jms.connection-factory: give broker-url (ActiveMQ Artemis, bundled) or connection-factory
            jms factory not found   | jms: {connection-factory: {class: com.example.NoSuchFactory}} | transport.jms.connection-factory.class: class com.example.NoSuchFactory is not on the class path
            jms not a factory       | jms: {connection-factory: {class: java.lang.StringBuilder}}   | transport.jms.connection-factory.class: class java.lang.StringBuilder is not a jakarta.jms.ConnectionFactory
            jms factory no setter   | jms: {connection-factory: {class: org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory, properties: {hostName: h}}} | transport.jms.connection-factory.properties.hostName: org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory has no public setHostName(...)
            jms factory wrong type  | jms: {connection-factory: {class: org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory, properties: {callTimeout: soon}}} | transport.jms.connection-factory.properties.callTimeout: expected a number (long), got 'soon'
            jms factory unknown key | jms: {connection-factory: {class: x.Y, propreties: {a: b}}}   | transport.jms.connection-factory.propreties: unknown key
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
