package io.txoutbox.spring.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxEvent;
import io.txoutbox.spring.SpringOutbox;
import io.txoutbox.spring.TestDatabase;
import io.txoutbox.spring.TxOutboxEndpoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in a real Spring Boot application: JPA (Hibernate) and the outbox share the transaction of
 * a {@code @Transactional} service; handler beans receive what commits, and nothing that rolls back.
 */
@SpringBootTest(
        classes = OrderApplication.class,
        properties = {
            "spring.jpa.hibernate.ddl-auto=create-drop",
            "spring.jpa.open-in-view=false",
            "txoutbox.create-schema=true",
            "txoutbox.relay.retain-published=1h",
            "txoutbox.relay.name=jpa-app",
            "management.endpoints.web.exposure.include=health,txoutbox"
        })
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class JpaApplicationTest {
    private static final String OUTBOX = TestDatabase.uniqueTable("sb_app");

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> TestDatabase.URL);
        registry.add("spring.datasource.username", () -> TestDatabase.USER);
        registry.add("txoutbox.table", () -> OUTBOX);
    }

    @Autowired
    OrderService service;

    @Autowired
    PlacedOrderRepository orders;

    @Autowired
    SpringOutbox outbox;

    @Autowired
    OrderApplication.Handled handled;

    @Autowired
    @Qualifier("txoutboxHealthIndicator")
    HealthIndicator health;

    @Autowired
    TxOutboxEndpoint endpoint;

    @Test
    void a_rolled_back_order_leaves_neither_row_and_nothing_is_handled() {
        assertThatThrownBy(() -> service.placeOrder("o-declined", 1_200, true)).hasMessageContaining("declined");

        assertThat(orders.existsById("o-declined")).isFalse();
        assertThat(TestDatabase.count("SELECT count(*) FROM " + OUTBOX + " WHERE aggregate_id = 'o-declined'"))
                .isZero();

        // A later order that commits is handled: by then the relay has seen everything there was.
        service.placeOrder("o-after-declined", 1_300, false);
        await().atMost(Duration.ofSeconds(20)).until(() -> handled.count("order.placed:o-after-declined") == 1);
        assertThat(handled.events).doesNotContain("order.placed:o-declined");
    }

    @Test
    void a_committed_order_and_its_event_both_exist_and_the_handler_gets_it_exactly_once() {
        OutboxEvent event = service.placeOrder("o-committed", 4_200, false);

        assertThat(orders.findById("o-committed"))
                .get()
                .extracting(PlacedOrder::getTotalCents)
                .isEqualTo(4_200);
        assertThat(TestDatabase.count("SELECT count(*) FROM " + OUTBOX + " WHERE id = '" + event.id() + "'"))
                .isEqualTo(1);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> TestDatabase.count("SELECT count(*) FROM " + OUTBOX + " WHERE id = '" + event.id()
                                + "' AND published_at IS NOT NULL")
                        == 1);
        assertThat(handled.count("order.placed:o-committed")).isEqualTo(1);
    }

    @Test
    void health_is_down_with_a_dead_event_and_up_again_after_it_is_revived() {
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        handled.refusePayments.set(true);
        OutboxEvent payment = service.capturePayment("o-paid");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> outbox.admin().stats().dead() == 1);
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.health().getDetails()).containsEntry("dead", 1L).containsKey("reason");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> dead = (List<Map<String, Object>>)
                endpoint.dead("dead", null, null, null).get("events");
        assertThat(dead).singleElement().satisfies(e -> {
            assertThat(e.get("id")).isEqualTo(payment.id().toString());
            assertThat((String) e.get("lastError")).contains("payment provider refused");
        });

        handled.refusePayments.set(false);
        assertThat(endpoint.revive("revive", List.of(payment.id().toString()), null, null))
                .containsEntry("revived", 1);

        await().atMost(Duration.ofSeconds(20)).until(() -> handled.count("payment.captured:o-paid") == 1);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> health.health().getStatus().equals(Status.UP));
        assertThat(endpoint.stats()).containsEntry("dead", 0L).containsEntry("table", OUTBOX);
    }

    @Test
    void the_endpoint_refuses_a_revive_that_names_nothing() {
        assertThatThrownBy(() -> endpoint.revive("revive", null, null, null))
                .hasMessageContaining("ids, type, or all=true");
        assertThatThrownBy(() -> endpoint.revive("revive", List.of("not-a-uuid"), null, null))
                .hasMessageContaining("not an event id");
        assertThat(endpoint.revive("revive", List.of(UUID.randomUUID().toString()), null, null))
                .containsEntry("revived", 0);
    }
}
