package io.txoutbox.mqtt;

import static io.txoutbox.test.transport.Publishing.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.provider.EventFormatProvider;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
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
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The opt-in CloudEvents format against the local Mosquitto: structured mode, read back with the
 * CloudEvents SDK's JSON event format, the one the binding names for MQTT 3.1.1.
 */
class MqttCloudEventsTest {
    private static final CloudEventsMapping MAPPING = CloudEventsMapping.source("https://orders.example.com/outbox");

    @Test
    void messages_arrive_as_structured_mode_cloudevents_that_the_sdk_reads_back() throws Exception {
        String topic = "txoutbox-test/ce/" + UUID.randomUUID();
        ClaimedEvent json = event(topic, "{\"total\": 12}".getBytes(StandardCharsets.UTF_8), "application/json");
        byte[] bytes = {0, 1, 2, (byte) 0xFE, (byte) 0xFF};
        ClaimedEvent binary = event(topic, bytes, "application/octet-stream");
        try (Subscriber subscriber = new Subscriber(topic);
                MqttPublisher publisher = MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .cloudEvents(MAPPING)
                        .build()) {
            assertThat(publish(publisher, List.of(json, binary), Duration.ofSeconds(30)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.raw().size() >= 2);

            EventFormat format = EventFormatProvider.getInstance().resolveFormat("application/cloudevents+json");
            byte[] first = subscriber.raw().get(0);
            CloudEvent ce = format.deserialize(first);
            assertMapped(ce, json);
            assertThat(new ObjectMapper().readTree(ce.getData().toBytes()))
                    .isEqualTo(new ObjectMapper().readTree(json.payload()));
            assertThat(new String(first, StandardCharsets.UTF_8))
                    .as("a JSON payload is embedded as it is")
                    .contains("\"data\":{\"total\": 12}");
            assertThat(ce.getExtension("traceparent")).isEqualTo(json.traceparent());
            assertThat(ce.getExtension("correlationid")).isEqualTo("c-1");
            assertThat(ce.getExtension("aggregatetype")).isEqualTo("order");

            CloudEvent second = format.deserialize(subscriber.raw().get(1));
            assertMapped(second, binary);
            assertThat(second.getData().toBytes()).isEqualTo(bytes);
        }
    }

    @Test
    void cloud_events_and_the_raw_format_are_refused_together() {
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .format(MqttPublisher.Format.RAW)
                        .cloudEvents(MAPPING)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("cloudEvents and format RAW contradict each other");
    }

    private static void assertMapped(CloudEvent ce, ClaimedEvent event) {
        CloudEventsAssert.assertMapped(ce, event, URI.create("https://orders.example.com/outbox"));
        assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo(6);
    }

    private static ClaimedEvent event(String topic, byte[] payload, String contentType) {
        return ClaimedEvents.claimed("order", "o-1", "order.placed", e -> {
            e.version = 6;
            e.payload = payload;
            e.contentType = contentType;
            e.headers = Map.of(
                    "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "correlation-id", "c-1");
            e.destination = topic;
        });
    }
}
