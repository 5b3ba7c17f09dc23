package io.txoutbox.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.TcpProxy;
import io.txoutbox.test.transport.ClaimedEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the contract does not cover: the envelope on the wire, raw mode, QoS, topics, the window, masking. */
class MqttPublisherTest {

    private static String newTopic() {
        return "txoutbox-test/" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    @Test
    void qos_0_is_rejected_at_build() {
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .qos(0)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("MqttPublisher.Builder.qos is 0")
                .satisfies(e ->
                        assertThat(((OutboxValidationException) e).field()).isEqualTo("MqttPublisher.Builder.qos"));
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .qos(3)
                        .build())
                .hasMessageContaining("qos is 3");
    }

    @Test
    void a_binary_payload_round_trips_through_the_broker_in_the_envelope_byte_for_byte() throws Exception {
        String topic = newTopic();
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        ClaimedEvent event = event(topic, binary, "application/octet-stream", Map.of("correlation-id", "c-1"));
        try (Subscriber subscriber = new Subscriber(topic);
                MqttPublisher publisher =
                        MqttPublisher.builder().serverUri(Subscriber.BROKER).build()) {
            assertThat(publish(publisher, List.of(event)))
                    .extracting(PublishOutcome::outcome)
                    .containsExactly(Outcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !subscriber.messages().isEmpty());
            assertThat(subscriber.messages()).singleElement().satisfies(m -> {
                assertThat(m.payload()).isEqualTo(binary);
                assertThat(m.headers())
                        .containsEntry(MessageHeaders.EVENT_ID, event.id().toString())
                        .containsEntry(MessageHeaders.CONTENT_TYPE, "application/octet-stream")
                        .containsEntry("correlation-id", "c-1");
            });
            assertThat(new String(subscriber.raw().get(0), StandardCharsets.UTF_8))
                    .contains("\"payloadBase64\":");
        }
    }

    @Test
    void raw_format_sends_the_payload_alone() throws Exception {
        String topic = newTopic();
        byte[] payload = "plain text, no envelope".getBytes(StandardCharsets.UTF_8);
        try (Subscriber subscriber = new Subscriber(topic);
                MqttPublisher publisher = MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .format(MqttPublisher.Format.RAW)
                        .build()) {
            assertThat(publish(publisher, List.of(event(topic, payload, "text/plain", Map.of()))))
                    .extracting(PublishOutcome::outcome)
                    .containsExactly(Outcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10)).until(() -> !subscriber.raw().isEmpty());
            assertThat(subscriber.raw()).singleElement().isEqualTo(payload);
        }
    }

    @Test
    void routes_by_aggregate_type_under_the_prefix_and_a_topic_with_wildcards_is_dead() throws Exception {
        String prefix = newTopic() + "/";
        ClaimedEvent routed = event(null, "{}".getBytes(StandardCharsets.UTF_8), "application/json", Map.of());
        ClaimedEvent wildcard =
                event("orders/+/placed", "{}".getBytes(StandardCharsets.UTF_8), "application/json", Map.of());
        try (Subscriber subscriber = new Subscriber(prefix + "order");
                MqttPublisher publisher = MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .topicPrefix(prefix)
                        .build()) {
            List<PublishOutcome> outcomes = publish(publisher, List.of(routed, wildcard));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsExactly(Outcome.PUBLISHED, Outcome.DEAD);
            assertThat(outcomes.get(1).reason()).contains("orders/+/placed");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !subscriber.messages().isEmpty());
            assertThat(subscriber.messages().get(0).eventId())
                    .isEqualTo(routed.id().toString());
        }
    }

    @Test
    void a_batch_larger_than_the_in_flight_window_is_confirmed_in_full() throws Exception {
        String topic = newTopic();
        List<ClaimedEvent> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            batch.add(
                    event(topic, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), "application/json", Map.of()));
        }
        try (Subscriber subscriber = new Subscriber(topic);
                MqttPublisher publisher = MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .maxInflight(4)
                        .build()) {
            assertThat(publish(publisher, batch))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> subscriber.messages().size() >= batch.size());
        }
    }

    @Test
    void a_broker_that_stops_acknowledging_yields_retries_then_the_next_batch_reconnects() throws Exception {
        String topic = newTopic();
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 1883);
                Subscriber subscriber = new Subscriber(topic);
                MqttPublisher publisher = MqttPublisher.builder()
                        .serverUri("tcp://" + proxy.host() + ":" + proxy.port())
                        .completionTimeout(Duration.ofMillis(700))
                        .build()) {
            assertThat(publish(publisher, events(1, topic)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            proxy.blackhole();
            List<PublishOutcome> outcomes = publish(publisher, events(3, topic));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsOnly(Outcome.RETRY);
            assertThat(outcomes.get(0).reason()).contains("no acknowledgement").contains(topic);
            proxy.restore();
            List<ClaimedEvent> after = events(3, topic);
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> publish(publisher, after).stream().allMatch(o -> o.outcome() == Outcome.PUBLISHED));
            await().atMost(Duration.ofSeconds(10)).until(() -> subscriber.messages().stream()
                    .map(m -> m.eventId())
                    .toList()
                    .containsAll(after.stream().map(e -> e.id().toString()).toList()));
        }
    }

    @Test
    void the_password_never_shows_in_to_string() {
        try (MqttPublisher publisher = MqttPublisher.builder()
                .serverUri(Subscriber.BROKER)
                .credentials("relay", "s3cret".toCharArray())
                .build()) {
            assertThat(publisher.toString()).doesNotContain("s3cret").contains("password=***");
        }
    }

    @Test
    void bad_settings_are_rejected_at_build_naming_the_setting() {
        assertThatThrownBy(() -> MqttPublisher.builder().build()).hasMessageContaining("serverUri is missing");
        assertThatThrownBy(() -> MqttPublisher.builder().serverUri("http://x:1").build())
                .hasMessageContaining("MqttPublisher.Builder.serverUri 'http://x:1'");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .topicPrefix("a/#/")
                        .build())
                .hasMessageContaining("topicPrefix");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .credentials(null, "p".toCharArray())
                        .build())
                .hasMessageContaining("credentials");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .maxInflight(0)
                        .build())
                .hasMessageContaining("maxInflight is 0");
    }

    private static List<PublishOutcome> publish(MqttPublisher publisher, List<ClaimedEvent> batch) throws Exception {
        return publisher.publish(batch).toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    private static List<ClaimedEvent> events(int n, String topic) {
        List<ClaimedEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(
                    event(topic, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), "application/json", Map.of()));
        }
        return events;
    }

    private static ClaimedEvent event(
            String destination, byte[] payload, String contentType, Map<String, String> headers) {
        return ClaimedEvents.claimed("order", "o-1", "order.placed", e -> {
            e.payload = payload;
            e.contentType = contentType;
            e.headers = headers;
            e.tenant = "tenant-1";
            e.destination = destination;
        });
    }
}
