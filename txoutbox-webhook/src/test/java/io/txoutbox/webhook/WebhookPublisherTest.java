package io.txoutbox.webhook;

import static io.txoutbox.webhook.Events.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.SettableClock;
import io.txoutbox.webhook.TestReceiver.Request;
import io.txoutbox.webhook.TestReceiver.Response;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What each answer of a real HTTP receiver on loopback becomes, and what the requests carry. */
class WebhookPublisherTest {
    static final String SECRET = "whsec_dHhvdXRib3gtd2ViaG9vay10ZXN0LXNlY3JldC0zMmI=";

    private static final SettableClock clock = SettableClock.startingNow();

    @RegisterExtension
    static final TestReceiver receiver = TestReceiver.started(
            WebhookVerifier.builder().secret(SECRET).clock(clock).build());

    @BeforeEach
    void reset() {
        clock.set(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    }

    private static WebhookPublisher publisher(String path) {
        return publisher(b -> b.endpoint(WebhookEndpoint.of(receiver.url(path), SECRET)));
    }

    private static WebhookPublisher publisher(UnaryOperator<WebhookPublisher.Builder> config) {
        return config.apply(WebhookPublisher.builder()
                        .allowPrivateNetworks(true) // the receiver is on loopback
                        .clock(clock)
                        .requestTimeout(Duration.ofSeconds(5)))
                .build();
    }

    static List<PublishOutcome> publish(WebhookPublisher publisher, ClaimedEvent... events) throws Exception {
        return publisher.publish(List.of(events)).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static PublishOutcome publishOne(String path, ClaimedEvent event) throws Exception {
        try (WebhookPublisher publisher = publisher(path)) {
            return publish(publisher, event).get(0);
        }
    }

    private String target(String path) {
        return "127.0.0.1:" + receiver.port() + path;
    }

    @Test
    void a_request_carries_the_payload_content_type_message_headers_and_a_verifiable_signature() throws Exception {
        ClaimedEvent event = event("order.placed");
        assertThat(publishOne("/hooks", event)).isEqualTo(PublishOutcome.PUBLISHED);

        assertThat(receiver.requests()).hasSize(1);
        Request got = receiver.requests().get(0);
        assertThat(got.verified())
                .as("verified by WebhookVerifier: %s", got.problem())
                .isTrue();
        assertThat(got.body()).isEqualTo(event.payload());
        assertThat(got.headers())
                .containsEntry("webhook-id", event.id().toString())
                .containsEntry(
                        "webhook-timestamp", Long.toString(clock.instant().getEpochSecond()))
                .containsEntry("content-type", "application/json")
                .containsEntry(MessageHeaders.EVENT_ID, event.id().toString())
                .containsEntry(MessageHeaders.EVENT_TYPE, "order.placed")
                .containsEntry(MessageHeaders.AGGREGATE_ID, event.aggregateId())
                .containsEntry(MessageHeaders.TENANT_ID, "tenant-1")
                .containsEntry(MessageHeaders.CORRELATION_ID, "corr-1");
        assertThat(got.headers().get("webhook-signature")).matches("v1,[A-Za-z0-9+/]{43}=");
    }

    @Test
    void headers_http_refuses_are_skipped_and_the_webhook_headers_cannot_be_forged_by_an_event() throws Exception {
        Map<String, String> headers = new HashMap<>();
        headers.put("host", "evil.example");
        headers.put("connection", "close");
        headers.put("x-euro", "\u20ac");
        headers.put("webhook-id", "forged");
        headers.put("webhook-signature", "v1,forged");
        headers.put("x-kept", "yes");
        ClaimedEvent event = event("order.placed", headers);

        assertThat(publishOne("/hooks", event)).isEqualTo(PublishOutcome.PUBLISHED);

        Request got = receiver.requests().get(0);
        assertThat(got.verified()).isTrue();
        assertThat(got.headers())
                .containsEntry("x-kept", "yes")
                .containsEntry("webhook-id", event.id().toString())
                .doesNotContainKey("x-euro")
                .doesNotContainValue("evil.example");
    }

    @Test
    void an_endpoint_header_is_sent_and_never_shown() throws Exception {
        WebhookEndpoint endpoint = WebhookEndpoint.builder(receiver.url("/hooks?token=s3cr3t-query"))
                .secret(SECRET)
                .header("Authorization", "Bearer s3cr3t-token")
                .build();
        try (WebhookPublisher publisher = publisher(b -> b.endpoint(endpoint))) {
            assertThat(publish(publisher, event("order.placed"))).containsExactly(PublishOutcome.PUBLISHED);
            assertThat(receiver.requests().get(0).headers()).containsEntry("authorization", "Bearer s3cr3t-token");
            assertThat(publisher.toString() + endpoint)
                    .contains("authorization", "?****", "1 secret (****)")
                    .doesNotContain("s3cr3t", SECRET, SECRET.substring(6));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 202, 204})
    void a_2xx_answer_is_published(int status) throws Exception {
        receiver.respond(r -> Response.of(status));
        assertThat(publishOne("/hooks", event("order.placed"))).isEqualTo(PublishOutcome.PUBLISHED);
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 303, 307, 308})
    void a_redirect_is_dead_and_not_followed(int status) throws Exception {
        receiver.respond(r -> r.path().equals("/moved")
                ? Response.of(status).with("Location", receiver.url("/target?sig=abc"))
                : Response.of(204));

        PublishOutcome outcome = publishOne("/moved", event("order.placed"));

        assertThat(outcome.outcome()).isEqualTo(Outcome.DEAD);
        assertThat(outcome.reason())
                .startsWith("HTTP " + status + " from " + target("/moved"))
                .contains("redirects are refused", "(to " + target("/target") + ")")
                .doesNotContain("sig=abc");
        assertThat(receiver.requestsTo("/moved")).hasSize(1);
        assertThat(receiver.requestsTo("/target"))
                .as("the redirect target got no request")
                .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 405, 409, 410, 413, 415, 422})
    void a_client_error_other_than_408_and_429_is_dead(int status) throws Exception {
        receiver.respond(r -> Response.of(status));
        PublishOutcome outcome = publishOne("/hooks", event("order.placed"));
        assertThat(outcome).isEqualTo(PublishOutcome.dead("HTTP " + status + " from " + target("/hooks")));
    }

    @ParameterizedTest
    @ValueSource(ints = {408, 429, 500, 502, 503, 504})
    void timeout_too_many_requests_and_server_errors_retry_after_the_backoff(int status) throws Exception {
        receiver.respond(r -> Response.of(status));
        PublishOutcome outcome = publishOne("/hooks", event("order.placed"));
        assertThat(outcome).isEqualTo(PublishOutcome.retry("HTTP " + status + " from " + target("/hooks")));
    }

    @Test
    void retry_after_in_seconds_is_honoured() throws Exception {
        receiver.respond(r -> Response.of(503).with("Retry-After", "120"));
        PublishOutcome outcome = publishOne("/hooks", event("order.placed"));
        assertThat(outcome.outcome()).isEqualTo(Outcome.RETRY);
        assertThat(outcome.notBefore()).isEqualTo(clock.instant().plusSeconds(120));
        assertThat(outcome.reason()).contains("HTTP 503", "Retry-After 120");
    }

    @Test
    void retry_after_as_an_http_date_is_honoured() throws Exception {
        Instant at = clock.instant().plus(Duration.ofHours(1));
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(at.atOffset(ZoneOffset.UTC));
        receiver.respond(r -> Response.of(429).with("Retry-After", date));
        PublishOutcome outcome = publishOne("/hooks", event("order.placed"));
        assertThat(outcome.outcome()).isEqualTo(Outcome.RETRY);
        assertThat(outcome.notBefore()).isEqualTo(at);
    }

    @Test
    void an_unreadable_retry_after_falls_back_to_the_relay_backoff() throws Exception {
        receiver.respond(r -> Response.of(503).with("Retry-After", "soon"));
        PublishOutcome outcome = publishOne("/hooks", event("order.placed"));
        assertThat(outcome.outcome()).isEqualTo(Outcome.RETRY);
        assertThat(outcome.notBefore()).isNull();
    }

    @Test
    void no_answer_within_the_request_timeout_retries() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        receiver.respond(r -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Response.of(204);
        });
        try (WebhookPublisher publisher = publisher(b ->
                b.endpoint(WebhookEndpoint.of(receiver.url("/slow"), SECRET)).requestTimeout(Duration.ofMillis(300)))) {
            PublishOutcome outcome = publish(publisher, event("order.placed")).get(0);
            assertThat(outcome).isEqualTo(PublishOutcome.retry(target("/slow") + ": no response within 300 ms"));
        } finally {
            release.countDown();
        }
    }

    @Test
    void a_refused_connection_retries() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            closedPort = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + closedPort + "/hooks";
        try (WebhookPublisher publisher = publisher(b -> b.endpoint(WebhookEndpoint.of(url, SECRET)))) {
            PublishOutcome outcome = publish(publisher, event("order.placed")).get(0);
            assertThat(outcome.outcome()).isEqualTo(Outcome.RETRY);
            assertThat(outcome.reason()).startsWith("127.0.0.1:" + closedPort + "/hooks: cannot connect");
        }
    }

    @Test
    void outcomes_come_in_batch_order_and_requests_stay_within_the_concurrency_bound() throws Exception {
        receiver.respond(r -> switch (r.headers().get(MessageHeaders.EVENT_TYPE)) {
            case "ok" -> Response.of(204);
            case "gone" -> Response.of(410);
            default -> Response.of(503);
        });
        List<ClaimedEvent> batch = new ArrayList<>();
        List<Outcome> expected = new ArrayList<>();
        String[] types = {"ok", "gone", "busy"};
        Outcome[] outcomes = {Outcome.PUBLISHED, Outcome.DEAD, Outcome.RETRY};
        for (int i = 0; i < 60; i++) {
            batch.add(event(types[i % 3]));
            expected.add(outcomes[i % 3]);
        }
        try (WebhookPublisher publisher = publisher(b ->
                b.endpoint(WebhookEndpoint.of(receiver.url("/hooks"), SECRET)).maxConcurrentRequests(3))) {
            List<PublishOutcome> result =
                    publisher.publish(batch).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(result).extracting(PublishOutcome::outcome).containsExactlyElementsOf(expected);
        }
        assertThat(receiver.requests()).hasSize(60);
        assertThat(receiver.maxInFlight()).isBetween(1, 3);
    }

    @Test
    void a_closed_publisher_refuses_batches() {
        WebhookPublisher publisher = publisher("/hooks");
        publisher.close();
        publisher.close();
        assertThatThrownBy(() -> publisher.publish(List.of(event("order.placed"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
