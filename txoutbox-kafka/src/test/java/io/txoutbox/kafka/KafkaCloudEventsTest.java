package io.txoutbox.kafka;

import static io.txoutbox.test.transport.Publishing.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.core.message.MessageReader;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.harness.kafka.SharedKafka;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.cloudevents.CloudEventsAssert;
import io.txoutbox.test.transport.ClaimedEvents;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The opt-in CloudEvents format, read back from the real broker with the CloudEvents SDK's Kafka readers. */
@ExtendWith(SharedKafka.class)
class KafkaCloudEventsTest {
    private static final CloudEventsMapping MAPPING = CloudEventsMapping.source("https://orders.example.com/outbox");

    @Test
    void events_arrive_as_binary_mode_cloudevents_that_the_sdk_reads_back() throws Exception {
        String topic = SharedKafka.broker().createNewTopic("ce", 1);
        ClaimedEvent placed = event("o-1", topic, "{\"total\": 12}");
        ClaimedEvent paid = event("o-2", topic, "{\"paid\":true}");
        try (TopicReader reader = new TopicReader(SharedKafka.broker().bootstrapServers(), topic);
                KafkaPublisher publisher = KafkaPublisher.builder()
                        .bootstrapServers(SharedKafka.broker().bootstrapServers())
                        .cloudEvents(MAPPING)
                        .build()) {
            assertThat(publish(publisher, List.of(placed, paid), Duration.ofSeconds(30)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(20)).until(() -> reader.raw().size() >= 2);

            ConsumerRecord<byte[], byte[]> record = reader.raw().get(0);
            MessageReader message = KafkaMessageFactory.createReader(record);
            assertThat(message.getEncoding()).isEqualTo(Encoding.BINARY);
            assertMapped(message.toEvent(), placed);
            try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
                ConsumerRecord<byte[], byte[]> next = reader.raw().get(1);
                assertMapped(deserializer.deserialize(topic, next.headers(), next.value()), paid);
            }

            Map<String, String> headers = TopicReader.headers(record);
            assertThat(headers)
                    .as("the Kafka binding's names, and the headers that are not attributes beside them")
                    .containsEntry("ce_id", placed.id().toString())
                    .containsEntry("ce_specversion", "1.0")
                    .containsEntry("ce_subject", "o-1")
                    .containsEntry("ce_eventversion", "2")
                    .containsEntry("content-type", "application/json")
                    .containsEntry("traceparent", placed.traceparent())
                    .containsEntry("aggregate-type", "order")
                    .containsEntry("x-own", "mine")
                    .doesNotContainKeys("event-id", "event-type", "event-version");
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("o-1");
        }
    }

    @Test
    void cloud_events_need_a_valid_source() {
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers("localhost:9")
                        .cloudEvents(CloudEventsMapping.source("not a uri"))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("CloudEventsMapping.source");
    }

    static void assertMapped(CloudEvent ce, ClaimedEvent event) {
        CloudEventsAssert.assertMapped(ce, event, URI.create("https://orders.example.com/outbox"));
        assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isIn(2, "2");
        assertThat(ce.getData().toBytes()).isEqualTo(event.payload());
    }

    static ClaimedEvent event(String aggregateId, String topic, String json) {
        return ClaimedEvents.claimed("order", aggregateId, "order.placed", e -> {
            e.version = 2;
            e.json(json);
            e.headers =
                    Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "x-own", "mine");
            e.destination = topic;
        });
    }
}
