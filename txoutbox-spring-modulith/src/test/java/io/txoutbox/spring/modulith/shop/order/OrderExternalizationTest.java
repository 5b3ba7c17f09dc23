package io.txoutbox.spring.modulith.shop.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxException;
import io.txoutbox.OutboxStats;
import io.txoutbox.relay.Backoff;
import io.txoutbox.spring.RelayCustomizer;
import io.txoutbox.spring.SpringOutbox;
import io.txoutbox.spring.modulith.shop.ShopInfrastructure;
import io.txoutbox.spring.modulith.shop.ShopInfrastructure.Message;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.test.ApplicationModuleTest;
import org.springframework.modulith.test.AssertablePublishedEvents;
import org.springframework.modulith.test.Scenario;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The order module with Modulith's own test support, on the local PostgreSQL (with Modulith's JDBC event
 * publication registry) and RabbitMQ: events that Modulith's configuration selects are appended in the
 * publishing transaction and the starter's relay delivers them through a real {@code RabbitPublisher}.
 * Published rows are retained, so the outbox table shows everything that was ever appended.
 */
@ApplicationModuleTest
@DirtiesContext
@ContextConfiguration(initializers = ShopInfrastructure.Initializer.class)
@TestPropertySource(
        properties = {
            "shop.name=orders",
            // The application's mapper, not a default one, writes the payload: snake_case shows it.
            "spring.jackson.property-naming-strategy=SNAKE_CASE",
            "txoutbox.relay.name=modulith-shop",
            "txoutbox.relay.retain-published=1h",
            "txoutbox.relay.max-attempts=100",
            "txoutbox.relay.poll-interval=500ms"
        })
class OrderExternalizationTest {
    private static final JsonMapper JSON = new JsonMapper();

    @TestConfiguration(proxyBeanMethods = false)
    static class QuickRetries {
        /** Retries within a second, so that the outage test does not wait for the default backoff. */
        @Bean
        RelayCustomizer quickRetries() {
            return relay -> relay.backoff(new Backoff(Duration.ofMillis(100), 2.0, Duration.ofMillis(500), true));
        }
    }

    private final ShopInfrastructure shop;
    private final OrderService orders;
    private final OrderAudit audit;
    private final SpringOutbox outbox;
    private final ApplicationEventPublisher publisher;
    private final IncompleteEventPublications incomplete;

    OrderExternalizationTest(
            ShopInfrastructure shop,
            OrderService orders,
            OrderAudit audit,
            SpringOutbox outbox,
            ApplicationEventPublisher publisher,
            IncompleteEventPublications incomplete) {
        this.shop = shop;
        this.orders = orders;
        this.audit = audit;
        this.outbox = outbox;
        this.publisher = publisher;
        this.incomplete = incomplete;
    }

    @Test
    void an_externalized_event_arrives_with_its_route_key_headers_and_json_payload(Scenario scenario) {
        scenario.stimulate(() -> orders.place("o-100", 1250, "eu-west"))
                .andWaitForStateChange(() -> shop.messageFor("o-100"))
                .andVerify(found -> {
                    Message m = found.orElseThrow();
                    assertThat(m.routingKey())
                            .as("route = Modulith's routing target")
                            .isEqualTo("orders");
                    assertThat(m.header("aggregate-id"))
                            .as("key = the routing key")
                            .isEqualTo("o-100");
                    assertThat(m.header("aggregate-type")).isEqualTo("orders");
                    assertThat(m.header("event-type")).isEqualTo(OrderPlaced.class.getName());
                    assertThat(m.header("event-version"))
                            .as("set by an ExternalizedEventCustomizer")
                            .isEqualTo("2");
                    assertThat(m.header("shop-region"))
                            .as("configuration header")
                            .isEqualTo("eu-west");
                    assertThat(m.header("total-cents"))
                            .as("configuration header")
                            .isEqualTo("1250");
                    assertThat(m.contentType()).isEqualTo("application/json");
                    assertThat(json(m.body()))
                            .isEqualTo(json("{\"order_id\":\"o-100\",\"total_cents\":1250,\"region\":\"eu-west\","
                                    + "\"placed_at\":\"2030-01-01T09:30:00Z\"}"));
                });
    }

    @Test
    void a_jmolecules_externalized_event_without_a_key_is_routed_by_its_type_and_keyed_by_its_own_id(
            Scenario scenario) {
        scenario.stimulate(() -> orders.cancel("o-200"))
                .andWaitForStateChange(() -> shop.received().stream()
                        .filter(m -> m.body().contains("\"o-200\""))
                        .findFirst())
                .andVerify(found -> {
                    Message m = found.orElseThrow();
                    assertThat(m.routingKey())
                            .as("Modulith's default route: the application-local type name")
                            .isEqualTo("order.OrderCancelled");
                    assertThat(m.header("event-type")).isEqualTo(OrderCancelled.class.getName());
                    assertThat(m.header("aggregate-id")).isEqualTo(m.header("event-id"));
                    assertThat(m.header("event-version")).isEqualTo("1");
                    assertThat(json(m.body())).isEqualTo(json("{\"order_id\":\"o-200\"}"));
                });
    }

    @Test
    void a_rolled_back_transaction_publishes_nothing(AssertablePublishedEvents events) {
        assertThatThrownBy(() -> orders.placeAndFail("o-300", 990, "eu-west")).hasMessageContaining("payment declined");

        // Modulith saw the event published inside the transaction; neither the order nor its event committed.
        assertThat(events).contains(OrderPlaced.class).matching(OrderPlaced::orderId, "o-300");
        assertThat(orders.exists("o-300")).isFalse();
        assertThat(outboxRows("o-300")).isZero();

        // A later order goes out and the outbox drains; the rolled-back one never reached the broker.
        orders.place("o-301", 1000, "eu-west");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> shop.messageFor("o-301").isPresent());
        await().atMost(Duration.ofSeconds(20)).until(this::drained);
        assertThat(shop.receivedFor("o-300")).isEmpty();
    }

    @Test
    void a_non_externalized_event_is_not_appended(Scenario scenario) {
        scenario.stimulate(() -> orders.place("o-400", 400, "us-east"))
                .andWaitForStateChange(() -> shop.messageFor("o-400"))
                .andVerifyEvents(
                        events -> assertThat(events).contains(OrderNoted.class).matching(OrderNoted::orderId, "o-400"));

        assertThat(outboxRows("o-400")).as("only OrderPlaced").isEqualTo(1);
        assertThat(shop.count(
                        "SELECT count(*) FROM " + shop.schema() + ".outbox WHERE event_type = ?",
                        OrderNoted.class.getName()))
                .isZero();
    }

    @Test
    void a_broker_outage_loses_nothing() {
        List<String> ids = IntStream.rangeClosed(1, 5).mapToObj(i -> "o-50" + i).toList();
        shop.proxy().cut();
        try {
            ids.forEach(id -> orders.place(id, 500, "eu-west"));
            // The relay tried and the broker was not there: the events wait for another attempt.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> shop.count(
                                    "SELECT count(*) FROM " + shop.schema() + ".outbox WHERE aggregate_id LIKE 'o-50%'"
                                            + " AND status = 'pending' AND attempts > 0")
                            == ids.size());
            assertThat(ids).allSatisfy(id -> assertThat(shop.receivedFor(id)).isEmpty());
        } finally {
            shop.proxy().restore();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(ids)
                .allSatisfy(id -> assertThat(shop.receivedFor(id)).isNotEmpty()));
        // A consumer can see a message before the relay has its confirm and marks the row: wait for the marks too.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> shop.count("SELECT count(*) FROM " + shop.schema()
                                + ".outbox WHERE aggregate_id LIKE 'o-50%'" + " AND status = 'published'")
                        == ids.size());
    }

    @Test
    void an_externalized_event_published_outside_a_transaction_is_refused_not_dropped() {
        assertThatThrownBy(
                        () -> publisher.publishEvent(new OrderPlaced("o-600", 600, "eu-west", OrderService.PLACED_AT)))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("needs an active Spring-managed transaction");
        assertThat(outboxRows("o-600")).isZero();
    }

    @Test
    void a_payload_the_mapper_cannot_write_rolls_the_business_change_back() {
        assertThatThrownBy(() -> orders.placeWithNote("o-800", new Unwritable()))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining(OrderNoteAdded.class.getName())
                .hasMessageContaining("cannot be serialized");
        assertThat(orders.exists("o-800")).isFalse();
        assertThat(outboxRows("o-800")).isZero();
    }

    @Test
    void the_publication_registry_records_only_module_listeners_and_resubmitting_them_sends_nothing_again() {
        audit.failFor("o-700");
        orders.place("o-700", 700, "eu-west");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> shop.messageFor("o-700").isPresent());
        await().atMost(Duration.ofSeconds(20)).until(() -> audit.failures().contains("o-700"));

        // The registry holds the audit's publication (incomplete), and none for txoutbox's externalization.
        String registry = shop.schema() + ".event_publication";
        await().atMost(Duration.ofSeconds(20))
                .until(() -> shop.count("SELECT count(*) FROM " + registry
                                + " WHERE serialized_event LIKE '%\"o-700\"%' AND completion_date IS NULL")
                        == 1);
        assertThat(shop.count(
                        "SELECT count(*) FROM " + registry
                                + " WHERE serialized_event LIKE '%\"o-700\"%' AND listener_id NOT LIKE ?",
                        "%OrderAudit%"))
                .isZero();

        audit.recover("o-700");
        incomplete.resubmitIncompletePublications(p ->
                p.getEvent() instanceof OrderPlaced placed && placed.orderId().equals("o-700"));
        await().atMost(Duration.ofSeconds(20)).until(() -> audit.audited().contains("o-700"));

        assertThat(outboxRows("o-700")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(this::drained);
        assertThat(shop.receivedFor("o-700")).hasSize(1);
    }

    /** A note whose only property cannot be read: no JSON mapper can write it. */
    static final class Unwritable {
        public String getText() {
            throw new UnsupportedOperationException("this note cannot be read");
        }
    }

    private long outboxRows(String orderId) {
        return shop.count("SELECT count(*) FROM " + shop.schema() + ".outbox WHERE aggregate_id = ?", orderId);
    }

    private boolean drained() {
        OutboxStats stats = outbox.admin().stats();
        return stats.pending() == 0 && stats.inFlight() == 0;
    }

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }
}
