package io.txoutbox.webhook;

import static io.txoutbox.webhook.Events.event;
import static io.txoutbox.webhook.WebhookPublisherTest.SECRET;
import static io.txoutbox.webhook.WebhookPublisherTest.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.webhook.TestReceiver.Response;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several endpoints: routing by event type, and how their answers combine into one outcome per event. */
class WebhookEndpointsTest {
    /** The status each path answers; 204 when absent. */
    private final Map<String, Integer> statuses = new ConcurrentHashMap<>();

    @RegisterExtension
    static final TestReceiver receiver =
            TestReceiver.started(WebhookVerifier.builder().secret(SECRET).build());

    @BeforeEach
    void reset() {
        receiver.respond(r -> r.verified() ? Response.of(statuses.getOrDefault(r.path(), 204)) : Response.of(401));
    }

    private static WebhookEndpoint endpoint(String name, String... types) {
        return WebhookEndpoint.builder(receiver.url("/" + name))
                .name(name)
                .secret(SECRET)
                .eventTypes(types)
                .build();
    }

    private static WebhookPublisher publisher(int remember, WebhookEndpoint... endpoints) {
        return WebhookPublisher.builder()
                .endpoints(List.of(endpoints))
                .allowPrivateNetworks(true)
                .rememberAcceptedDeliveries(remember)
                .build();
    }

    @Test
    void an_event_goes_to_every_endpoint_whose_filter_matches_and_only_those() throws Exception {
        try (WebhookPublisher publisher = publisher(
                10,
                endpoint("orders", "order.*"),
                endpoint("invoices", "invoice.paid"),
                endpoint("placed", "order.placed"),
                endpoint("all"))) {
            ClaimedEvent placed = event("order.placed");
            ClaimedEvent shipped = event("order.shipped");
            ClaimedEvent paid = event("invoice.paid");
            ClaimedEvent refunded = event("invoice.refunded");

            assertThat(publish(publisher, placed, shipped, paid, refunded)).containsOnly(PublishOutcome.PUBLISHED);

            assertThat(ids("/orders")).containsExactlyInAnyOrder(id(placed), id(shipped));
            assertThat(ids("/placed")).containsExactly(id(placed));
            assertThat(ids("/invoices")).containsExactly(id(paid));
            assertThat(ids("/all")).containsExactlyInAnyOrder(id(placed), id(shipped), id(paid), id(refunded));
        }
    }

    @Test
    void an_event_no_endpoint_matches_is_dead_with_the_reason_and_sends_nothing() throws Exception {
        try (WebhookPublisher publisher = publisher(10, endpoint("orders", "order.*"))) {
            PublishOutcome outcome = publish(publisher, event("user.created")).get(0);
            assertThat(outcome.outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcome.reason())
                    .startsWith("no webhook endpoint matches event type 'user.created'")
                    .contains("orders [order.*]");
            assertThat(receiver.requests()).isEmpty();
        }
    }

    @Test
    void one_endpoint_failing_retries_the_event_and_the_retry_skips_the_endpoint_that_accepted() throws Exception {
        statuses.put("/billing", 503);
        try (WebhookPublisher publisher = publisher(10, endpoint("audit"), endpoint("billing"))) {
            ClaimedEvent e = event("order.placed");

            PublishOutcome first = publish(publisher, e).get(0);
            assertThat(first).isEqualTo(PublishOutcome.retry("webhook 'billing': HTTP 503 from " + target("/billing")));

            statuses.remove("/billing");
            assertThat(publish(publisher, e)).containsExactly(PublishOutcome.PUBLISHED);
            assertThat(ids("/audit")).as("accepted once, not sent again").containsExactly(id(e));
            assertThat(ids("/billing")).containsExactly(id(e));
            assertThat(receiver.requestsTo("/billing")).hasSize(2);
        }
    }

    @Test
    void without_delivery_memory_a_retry_sends_a_duplicate_to_the_endpoint_that_accepted() throws Exception {
        statuses.put("/billing", 500);
        try (WebhookPublisher publisher = publisher(0, endpoint("audit"), endpoint("billing"))) {
            ClaimedEvent e = event("order.placed");
            assertThat(publish(publisher, e).get(0).outcome()).isEqualTo(Outcome.RETRY);
            statuses.remove("/billing");
            assertThat(publish(publisher, e)).containsExactly(PublishOutcome.PUBLISHED);
            assertThat(ids("/audit"))
                    .as("the same webhook-id twice: receivers deduplicate")
                    .containsExactly(id(e), id(e));
        }
    }

    @Test
    void a_dead_answer_wins_over_a_retry_and_the_reason_names_both() throws Exception {
        statuses.put("/audit", 404);
        statuses.put("/billing", 503);
        try (WebhookPublisher publisher = publisher(10, endpoint("audit"), endpoint("billing"))) {
            PublishOutcome outcome = publish(publisher, event("order.placed")).get(0);
            assertThat(outcome)
                    .isEqualTo(PublishOutcome.dead("webhook 'audit': HTTP 404 from " + target("/audit")
                            + "; webhook 'billing': HTTP 503 from " + target("/billing")));
        }
    }

    @Test
    void the_latest_retry_after_of_the_failing_endpoints_wins() throws Exception {
        receiver.respond(r -> switch (r.path()) {
            case "/audit" -> Response.of(429).with("Retry-After", "30");
            case "/billing" -> Response.of(503).with("Retry-After", "90");
            default -> Response.of(500);
        });
        Instant before = Instant.now();
        try (WebhookPublisher publisher = publisher(10, endpoint("audit"), endpoint("billing"), endpoint("other"))) {
            PublishOutcome outcome = publish(publisher, event("order.placed")).get(0);
            assertThat(outcome.outcome()).isEqualTo(Outcome.RETRY);
            assertThat(outcome.notBefore())
                    .isAfterOrEqualTo(before.plusSeconds(90).minusSeconds(1));
            assertThat(outcome.reason()).contains("'audit'", "'billing'", "'other'");
        }
    }

    private String target(String path) {
        return "127.0.0.1:" + receiver.port() + path;
    }

    private static List<String> ids(String path) {
        return receiver.acceptedAt(path).stream()
                .map(TestReceiver.Request::eventId)
                .toList();
    }

    private static String id(ClaimedEvent e) {
        return e.id().toString();
    }
}
