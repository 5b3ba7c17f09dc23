package io.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.harness.kafka.KafkaBroker;
import io.txoutbox.harness.kafka.SharedKafka;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Router;
import io.txoutbox.test.transport.ClaimedEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What the Kafka transport adds to the contract, against the same real broker. */
@ExtendWith(SharedKafka.class)
class KafkaPublisherTest {

    @Test
    void events_of_one_aggregate_arrive_in_order_within_their_partition() throws Exception {
        String topic = SharedKafka.broker().createNewTopic("order", 4);
        List<ClaimedEvent> events = new ArrayList<>();
        for (int seq = 0; seq < 20; seq++) {
            for (int aggregate = 0; aggregate < 6; aggregate++) {
                events.add(
                        event("agg-" + aggregate, topic, ("{\"seq\":" + seq + "}").getBytes(StandardCharsets.UTF_8)));
            }
        }
        try (TopicReader reader = new TopicReader(SharedKafka.broker().bootstrapServers(), topic);
                KafkaPublisher publisher = publisher()) {
            for (int from = 0; from < events.size(); from += 30) {
                assertThat(publish(publisher, events.subList(from, from + 30)))
                        .extracting(PublishOutcome::outcome)
                        .containsOnly(Outcome.PUBLISHED);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> reader.raw().size() >= events.size());

            Map<String, List<ConsumerRecord<byte[], byte[]>>> byKey = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : reader.raw()) {
                byKey.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>())
                        .add(r);
            }
            assertThat(byKey).hasSize(6);
            assertThat(byKey.values().stream().map(rs -> rs.get(0).partition()).distinct())
                    .as("six aggregates spread over several partitions")
                    .hasSizeGreaterThan(1);
            byKey.forEach((key, records) -> {
                assertThat(records)
                        .extracting(ConsumerRecord::partition)
                        .as("one partition per aggregate %s", key)
                        .containsOnly(records.get(0).partition());
                List<String> payloads = records.stream()
                        .sorted((a, b) -> Long.compare(a.offset(), b.offset()))
                        .map(r -> new String(r.value(), StandardCharsets.UTF_8))
                        .toList();
                List<String> expected = new ArrayList<>();
                for (int seq = 0; seq < 20; seq++) {
                    expected.add("{\"seq\":" + seq + "}");
                }
                assertThat(payloads).as("order of aggregate %s", key).isEqualTo(expected);
            });
        }
    }

    @Test
    void a_record_over_the_brokers_message_max_bytes_goes_dead_with_the_reason_and_the_others_publish()
            throws Exception {
        String topic = SharedKafka.broker().createNewTopic("large", 1);
        byte[] big = new byte[SharedKafka.broker().maxMessageBytes() + 10_000];
        Arrays.fill(big, (byte) 'x');
        List<ClaimedEvent> batch = List.of(
                event("a", topic, "{}".getBytes(StandardCharsets.UTF_8)),
                event("a", topic, big),
                event("b", topic, "{}".getBytes(StandardCharsets.UTF_8)));
        try (KafkaPublisher publisher = publisher()) {
            List<PublishOutcome> outcomes = publish(publisher, batch);
            assertThat(outcomes.get(0)).isEqualTo(PublishOutcome.PUBLISHED);
            assertThat(outcomes.get(1).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(1).reason()).contains("too large", topic, big.length + " bytes");
            assertThat(outcomes.get(2)).isEqualTo(PublishOutcome.PUBLISHED);
        }
    }

    @Test
    void an_invalid_topic_goes_dead_with_the_reason() throws Exception {
        try (KafkaPublisher publisher = publisher()) {
            List<PublishOutcome> outcomes = publish(
                    publisher, List.of(event("a", "no spaces allowed!", "{}".getBytes(StandardCharsets.UTF_8))));
            assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(0).reason()).contains("invalid Kafka topic", "no spaces allowed!");
        }
    }

    @Test
    void a_router_that_gives_no_topic_makes_the_event_dead() throws Exception {
        try (KafkaPublisher publisher = KafkaPublisher.builder()
                .bootstrapServers(SharedKafka.broker().bootstrapServers())
                .router(e -> "")
                .build()) {
            List<PublishOutcome> outcomes = publish(publisher, List.of(event("a", null, new byte[0])));
            assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(0).reason()).contains("no topic", "order.placed");
        }
    }

    @Test
    void the_topic_is_the_prefixed_route_and_the_key_is_the_aggregate_id() throws Exception {
        String prefix = KafkaBroker.newTopic("prefix") + ".";
        String topic = prefix + "order";
        SharedKafka.broker().createTopic(topic, 1);
        ClaimedEvent placed = event("o-42", null, "{\"total\":12}".getBytes(StandardCharsets.UTF_8));
        try (TopicReader reader = new TopicReader(SharedKafka.broker().bootstrapServers(), topic);
                KafkaPublisher publisher = KafkaPublisher.builder()
                        .bootstrapServers(SharedKafka.broker().bootstrapServers())
                        .router(Router.BY_AGGREGATE_TYPE)
                        .topicPrefix(prefix)
                        .build()) {
            assertThat(publish(publisher, List.of(placed))).containsExactly(PublishOutcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10)).until(() -> !reader.raw().isEmpty());
            ConsumerRecord<byte[], byte[]> r = reader.raw().get(0);
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("o-42");
            assertThat(r.value()).isEqualTo(placed.payload());
            assertThat(TopicReader.headers(r)).isEqualTo(MessageHeaders.of(placed));
        }
    }

    @Test
    void a_broken_producer_makes_the_batch_retry_and_the_publisher_replaces_the_one_it_created() throws Exception {
        String topic = SharedKafka.broker().createNewTopic("broken", 1);
        try (KafkaPublisher publisher = publisher()) {
            assertThat(publish(publisher, batch(topic, 3))).containsOnly(PublishOutcome.PUBLISHED);
            Producer<byte[], byte[]> first = publisher.currentProducer();
            first.close(Duration.ZERO);

            List<PublishOutcome> whileBroken = publish(publisher, batch(topic, 3));
            assertThat(whileBroken).extracting(PublishOutcome::outcome).containsOnly(Outcome.RETRY);
            assertThat(whileBroken.get(0).reason()).contains("Kafka producer failed");

            assertThat(publish(publisher, batch(topic, 3))).containsOnly(PublishOutcome.PUBLISHED);
            assertThat(publisher.currentProducer()).isNotSameAs(first);
        }
    }

    @Test
    void a_producer_the_caller_gave_is_neither_replaced_nor_closed() throws Exception {
        String topic = SharedKafka.broker().createNewTopic("given", 1);
        try (KafkaProducer<byte[], byte[]> own = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SharedKafka.broker().bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            try (KafkaPublisher publisher =
                    KafkaPublisher.builder().producer(own).build()) {
                assertThat(publish(publisher, batch(topic, 2))).containsOnly(PublishOutcome.PUBLISHED);
            }
            assertThat(own.partitionsFor(topic))
                    .as("still open after the publisher closed")
                    .hasSize(1);

            try (KafkaPublisher publisher =
                    KafkaPublisher.builder().producer(own).build()) {
                own.close(Duration.ZERO);
                assertThat(publish(publisher, batch(topic, 2)))
                        .extracting(PublishOutcome::outcome)
                        .containsOnly(Outcome.RETRY);
                assertThat(publish(publisher, batch(topic, 2)))
                        .extracting(PublishOutcome::outcome)
                        .containsOnly(Outcome.RETRY);
                assertThat(publisher.currentProducer()).isSameAs(own);
            }
        }
    }

    @Test
    void a_topic_the_principal_may_not_write_goes_dead_as_not_authorized() throws Exception {
        String topic = SharedKafka.broker().createNewTopic("denied", 1);
        try (KafkaPublisher publisher = saslPublisher(KafkaBroker.SASL_PASSWORD)) {
            List<PublishOutcome> outcomes = publish(publisher, batch(topic, 2));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsOnly(Outcome.DEAD);
            assertThat(outcomes.get(0).reason()).contains("not authorized", topic);
        }
    }

    @Test
    void a_producer_that_fails_to_authenticate_retries_and_is_replaced() throws Exception {
        String topic = KafkaBroker.newTopic("unauthenticated");
        try (KafkaPublisher publisher = saslPublisher("wrong-password")) {
            Producer<byte[], byte[]> first = publisher.currentProducer();
            List<PublishOutcome> outcomes = publish(publisher, batch(topic, 2));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsOnly(Outcome.RETRY);
            assertThat(outcomes.get(0).reason()).contains("SaslAuthenticationException");
            publish(publisher, batch(topic, 1));
            assertThat(publisher.currentProducer()).isNotSameAs(first);
            assertThat(publisher.toString()).doesNotContain("wrong-password");
        }
    }

    private static KafkaPublisher saslPublisher(String password) {
        return KafkaPublisher.builder()
                .bootstrapServers(SharedKafka.broker().saslBootstrapServers())
                .producerProperty("security.protocol", "SASL_PLAINTEXT")
                .producerProperty("sasl.mechanism", "PLAIN")
                .producerProperty(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                                + KafkaBroker.SASL_USER + "\" password=\"" + password + "\";")
                .requestTimeout(Duration.ofSeconds(2))
                .deliveryTimeout(Duration.ofSeconds(4))
                .build();
    }

    private static KafkaPublisher publisher() {
        return KafkaPublisher.builder()
                .bootstrapServers(SharedKafka.broker().bootstrapServers())
                .build();
    }

    private static List<PublishOutcome> publish(KafkaPublisher publisher, List<ClaimedEvent> batch) throws Exception {
        return publisher.publish(batch).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static List<ClaimedEvent> batch(String topic, int n) {
        List<ClaimedEvent> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(event("agg-" + i, topic, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
        }
        return batch;
    }

    static ClaimedEvent event(String aggregateId, String destination, byte[] payload) {
        return ClaimedEvents.claimed("order", aggregateId, "order.placed", e -> {
            e.payload = payload;
            e.contentType = "application/json";
            e.headers = Map.of(MessageHeaders.CORRELATION_ID, "corr-" + aggregateId);
            e.destination = destination;
        });
    }
}
