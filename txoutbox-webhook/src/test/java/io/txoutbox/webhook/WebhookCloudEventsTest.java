package io.txoutbox.webhook;

import static io.txoutbox.test.cloudevents.CloudEventsAssert.assertMapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.core.message.MessageReader;
import io.cloudevents.http.HttpMessageFactory;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.transport.ClaimedEvents;
import io.txoutbox.webhook.TestReceiver.Request;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The opt-in CloudEvents format, received by a real HTTP server and read with the CloudEvents SDK's HTTP reader. */
class WebhookCloudEventsTest {
    private static final String SECRET = WebhookPublisherTest.SECRET;

    @Test
    void webhooks_arrive_as_signed_binary_mode_cloudevents_that_the_sdk_reads_back() throws Exception {
        ClaimedEvent event = event("o-1");
        try (TestReceiver receiver = new TestReceiver(
                        WebhookVerifier.builder().secret(SECRET).build());
                WebhookPublisher publisher = publisher(receiver)) {
            assertThat(publish(publisher, event)).containsExactly(Outcome.PUBLISHED);

            Request request = receiver.requests().get(0);
            assertThat(request.verified())
                    .as("the body, and so the signature, is unchanged")
                    .isTrue();
            MessageReader message = HttpMessageFactory.createReader(request.headers(), request.body());
            assertThat(message.getEncoding()).isEqualTo(Encoding.BINARY);
            CloudEvent ce = message.toEvent();
            assertMapped(ce, event, URI.create("https://orders.example.com/outbox"));
            assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo("4");
            assertThat(ce.getData().toBytes()).isEqualTo(event.payload());

            assertThat(request.headers())
                    .as("the HTTP binding's names, and the other headers beside them")
                    .containsEntry("ce-id", event.id().toString())
                    .containsEntry("ce-specversion", "1.0")
                    .containsEntry("ce-eventversion", "4")
                    .containsEntry("webhook-id", event.id().toString())
                    .containsEntry("traceparent", event.traceparent())
                    .containsEntry("tenant-id", "t-1")
                    .doesNotContainKeys("event-id", "event-type", "aggregate-id");
        }
    }

    @Test
    void attribute_values_outside_printable_ascii_are_percent_encoded() throws Exception {
        try (TestReceiver receiver = new TestReceiver(
                        WebhookVerifier.builder().secret(SECRET).build());
                WebhookPublisher publisher = publisher(receiver)) {
            assertThat(publish(publisher, event("order 7 \u20AC"))).containsExactly(Outcome.PUBLISHED);

            assertThat(receiver.requests().get(0).headers()).containsEntry("ce-subject", "order%207%20%E2%82%AC");
        }
    }

    @Test
    void cloud_events_need_a_source() {
        assertThatThrownBy(() -> CloudEventsMapping.source(""))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("CloudEventsMapping.source is blank");
    }

    private static WebhookPublisher publisher(TestReceiver receiver) {
        return WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of(receiver.url("/ce"), SECRET))
                .allowPrivateNetworks(true) // the receiver is on loopback
                .requestTimeout(Duration.ofSeconds(5))
                .cloudEvents(CloudEventsMapping.source("https://orders.example.com/outbox"))
                .build();
    }

    private static List<Outcome> publish(WebhookPublisher publisher, ClaimedEvent event) throws Exception {
        return publisher.publish(List.of(event)).toCompletableFuture().get(30, TimeUnit.SECONDS).stream()
                .map(PublishOutcome::outcome)
                .toList();
    }

    private static ClaimedEvent event(String aggregateId) {
        return ClaimedEvents.claimed("order", aggregateId, "order.placed", e -> {
            e.version = 4;
            e.json("{\"total\": 12}");
            e.headers = Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
            e.tenant = "t-1";
        });
    }
}
