package io.txoutbox.spring.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxEvent;
import io.txoutbox.spring.SpringOutbox;
import io.txoutbox.spring.TestDatabase;
import io.txoutbox.spring.TxOutboxEndpoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in a real Spring Boot application: JPA (Hibernate) and the outbox share the transaction of
 * a {@code @Transactional} service; handler beans receive what commits, and nothing that rolls back.
 */
@SpringBootTest(
        classes = OrderApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.jpa.hibernate.ddl-auto=create-drop",
            "spring.jpa.open-in-view=false",
            "txoutbox.create-schema=true",
            "txoutbox.relay.retain-published=1h",
            "txoutbox.relay.name=jpa-app",
            "management.endpoints.web.exposure.include=health,txoutbox",
            "management.endpoint.health.show-details=always"
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

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

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
    void health_is_down_with_a_dead_event_and_up_again_after_it_is_revived_over_http() throws Exception {
        assertThat(get("/actuator/health/txoutbox").statusCode()).isEqualTo(200);
        handled.refusePayments.set(true);
        OutboxEvent payment = service.capturePayment("o-paid");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> outbox.admin().stats().dead() == 1);
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.health().getDetails()).containsEntry("dead", 1L).containsKey("reason");
        HttpResponse<String> down = get("/actuator/health/txoutbox");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.body()).contains("\"DOWN\"").contains("dead events");

        HttpResponse<String> dead = get("/actuator/txoutbox/dead?type=payment.captured");
        assertThat(dead.statusCode()).isEqualTo(200);
        assertThat(dead.body()).contains(payment.id().toString()).contains("payment provider refused");

        handled.refusePayments.set(false);
        HttpResponse<String> revived = post("/actuator/txoutbox/revive", "{\"ids\":\"" + payment.id() + "\"}");
        assertThat(revived.statusCode()).as(revived.body()).isEqualTo(200);
        assertThat(revived.body()).contains("\"revived\":1");

        await().atMost(Duration.ofSeconds(20)).until(() -> handled.count("payment.captured:o-paid") == 1);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> get("/actuator/health/txoutbox").statusCode() == 200);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        HttpResponse<String> stats = get("/actuator/txoutbox");
        assertThat(stats.body()).contains("\"dead\":0").contains("\"table\":\"" + OUTBOX + "\"");
    }

    @Test
    void the_endpoint_answers_400_to_a_revive_that_names_nothing_and_never_revives_on_get() throws Exception {
        assertThat(post("/actuator/txoutbox/revive", "{}").statusCode()).isEqualTo(400);
        assertThat(post("/actuator/txoutbox/revive", "{\"ids\":\"not-a-uuid\"}").statusCode())
                .isEqualTo(400);
        assertThat(get("/actuator/txoutbox/revive").statusCode()).isEqualTo(400);
        HttpResponse<String> all = post("/actuator/txoutbox/revive", "{\"all\":true}");
        assertThat(all.statusCode()).isEqualTo(200);
        assertThat(all.body()).contains("\"revived\":");
    }

    @Test
    void the_endpoint_operations_refuse_bad_input() {
        assertThatThrownBy(() -> endpoint.revive("revive", null, null, null))
                .hasMessageContaining("ids, type, or all=true");
        assertThatThrownBy(() -> endpoint.revive("revive", "not-a-uuid", null, null))
                .hasMessageContaining("not an event id");
        assertThat(endpoint.revive("revive", UUID.randomUUID() + "," + UUID.randomUUID(), null, null))
                .containsEntry("revived", 0);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
