package io.txoutbox.webhook;

import static io.txoutbox.webhook.Events.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.PublishOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WebhookSettingsTest {
    @RegisterExtension
    static final TestReceiver receiver = TestReceiver.started(
            WebhookVerifier.builder().secret(WebhookPublisherTest.SECRET).build());

    @Test
    void every_request_carries_the_user_agent_set_or_the_default() throws Exception {
        try (WebhookPublisher p = WebhookPublisher.builder()
                .allowPrivateNetworks(true) // the receiver is on loopback
                .set(WebhookSettings.USER_AGENT, "orders-relay/2.1 (+ops@example.com)")
                .endpoint(WebhookEndpoint.of(receiver.url("/ua"), WebhookPublisherTest.SECRET))
                .build()) {
            assertThat(WebhookPublisherTest.publish(p, event("order.placed")))
                    .containsExactly(PublishOutcome.PUBLISHED);
        }
        try (WebhookPublisher p = WebhookPublisher.builder()
                .allowPrivateNetworks(true)
                .endpoint(WebhookEndpoint.of(receiver.url("/default"), WebhookPublisherTest.SECRET))
                .build()) {
            assertThat(WebhookPublisherTest.publish(p, event("order.placed")))
                    .containsExactly(PublishOutcome.PUBLISHED);
        }
        assertThat(receiver.requestsTo("/ua").get(0).headers())
                .containsEntry("user-agent", "orders-relay/2.1 (+ops@example.com)");
        assertThat(receiver.requestsTo("/default").get(0).headers()).containsEntry("user-agent", "txoutbox-webhook");
    }

    @Test
    void a_user_agent_that_could_split_a_header_is_refused_naming_it_as_written() {
        SettingValues v = new SettingValues().set(WebhookSettings.USER_AGENT, "relay\r\nX-Forged: 1");
        assertThatThrownBy(() -> WebhookSettings.of(v, Spelling.keys("sources[0].transport.webhook")))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("sources[0].transport.webhook.user-agent is 'relay\\r\\nX-Forged: 1'; it must be 1 to 200"
                        + " printable ASCII characters");
        assertThatThrownBy(() -> WebhookPublisher.builder()
                        .set(WebhookSettings.USER_AGENT, "x".repeat(201))
                        .endpoint(WebhookEndpoint.of("https://hooks.example.com/", WebhookPublisherTest.SECRET))
                        .build())
                .satisfies(e ->
                        assertThat(((OutboxValidationException) e).field()).isEqualTo("WebhookPublisher.userAgent"));
    }
}
