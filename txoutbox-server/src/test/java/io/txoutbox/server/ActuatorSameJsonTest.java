package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.JSON;
import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.server.cli.RelayServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The relay server's admin API and the Spring starter's actuator endpoint, both running on one table,
 * answer the same JSON for its stats and its dead events: the server adds only what it alone knows (its
 * source, relays, routes and throughput) around the same fields.
 */
class ActuatorSameJsonTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_same");
    /** What only the server's stats carry: its source and its relays' and routes' activity. */
    private static final List<String> SERVER_ONLY = List.of("source", "status", "relayed", "routes", "throughput");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static TestReceiver receiver;
    static RelayServer server;
    static ConfigurableApplicationContext spring;
    static String serverBase;
    static String actuatorBase;

    /** An application with the starter, the actuator and a web server: the endpoint, and no relay. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        /** A pool of its own: the context closes it, and the other tests' pool stays open. */
        @Bean
        HikariDataSource dataSource() {
            HikariConfig c = new HikariConfig();
            c.setJdbcUrl(TestSupport.PG_URL);
            c.setUsername(TestSupport.PG_USER);
            c.setMaximumPoolSize(4);
            return new HikariDataSource(c);
        }
    }

    @BeforeAll
    static void start() throws IOException {
        receiver = new TestReceiver();
        receiver.refusedTypes.add("invoice.sent");
        // Published rows are kept, so the stats have published counts that stay put while both are asked.
        server = TestSupport.start(TestSupport.yaml(TABLE, receiver.url(), true, "      retain-published: 1h"));
        serverBase = "http://127.0.0.1:" + server.port() + "/api/sources/orders";
        Outbox producer = Outbox.builder(TestSupport.postgres()).table(TABLE).build();
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            events.add(event("order.placed", "o-" + i, null));
            events.add(event("invoice.sent", "o-" + i, i == 2 ? "acme" : null));
        }
        events.add(event("audit.recorded", "o-1", null));
        producer.inTransaction(c -> producer.appendAll(c, events));
        producer.close();
        // Settled: every event published or dead, so nothing moves between the two answers (no pending event
        // whose age grows).
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode s = http("GET", serverBase + "/stats", TOKEN, null).json();
            return s.path("dead").asLong() == 3
                    && s.path("published").asLong() == 4
                    && s.path("pending").asLong() == 0
                    && s.path("inFlight").asLong() == 0;
        });

        spring = new SpringApplicationBuilder(Application.class)
                .properties(Map.of(
                        "server.port", "0",
                        "server.address", "127.0.0.1",
                        "spring.main.banner-mode", "off",
                        "management.endpoints.web.exposure.include", "txoutbox",
                        // As many applications set it; the endpoint's answer must not change with it.
                        "spring.jackson.default-property-inclusion", "non_null",
                        "txoutbox.table", TABLE))
                .run();
        int port = ((WebServerApplicationContext) spring).getWebServer().getPort();
        actuatorBase = "http://127.0.0.1:" + port + "/actuator/txoutbox";
    }

    @AfterAll
    static void stop() {
        TestSupport.cleanUp(TABLE, receiver, server, spring);
    }

    @Test
    void the_stats_are_the_same_json_and_the_server_adds_only_its_own_sections() throws Exception {
        JsonNode fromServer = http("GET", serverBase + "/stats", TOKEN, null).json();
        String fromActuator = actuator("");

        ObjectNode shared = fromServer.deepCopy();
        List<String> serverOnly = new ArrayList<>();
        fromServer.fieldNames().forEachRemaining(name -> {
            if (SERVER_ONLY.contains(name)) {
                serverOnly.add(name);
                shared.remove(name);
            }
        });
        assertThat(serverOnly).containsExactlyElementsOf(SERVER_ONLY);
        assertThat(fromActuator).isEqualTo(JSON.writeValueAsString(shared));
        assertThat(JSON.readTree(fromActuator).path("byType").fieldNames())
                .toIterable()
                .containsExactly("audit.recorded", "invoice.sent", "order.placed");
        assertThat(JSON.readTree(fromActuator).path("table").asText()).isEqualTo(TABLE);
    }

    @Test
    void a_page_of_dead_events_is_the_same_json_page_by_page() throws Exception {
        String firstPage =
                http("GET", serverBase + "/dead?limit=2", TOKEN, null).body();
        assertThat(actuator("/dead?limit=2")).isEqualTo(firstPage);
        JsonNode first = JSON.readTree(firstPage);
        assertThat(first.path("events")).hasSize(2);
        assertThat(first.path("events").get(0).path("lastError").asText()).contains("HTTP 410");

        String next = first.path("next").asText();
        String secondPage = http("GET", serverBase + "/dead?limit=2&after=" + next, TOKEN, null)
                .body();
        assertThat(actuator("/dead?limit=2&after=" + next)).isEqualTo(secondPage);
        assertThat(JSON.readTree(secondPage).path("events")).hasSize(1);
        assertThat(JSON.readTree(secondPage).path("next").isNull())
                .as("the last page says so with a null, on both")
                .isTrue();

        String byTypeDefaultPage =
                http("GET", serverBase + "/dead?type=invoice.sent", TOKEN, null).body();
        assertThat(actuator("/dead?type=invoice.sent")).isEqualTo(byTypeDefaultPage);
        assertThat(byTypeDefaultPage).contains("\"tenantId\":\"acme\"").contains("\"tenantId\":null");
    }

    private static OutboxEvent event(String type, String order, String tenant) {
        OutboxEvent.Builder b =
                OutboxEvent.builder(type).aggregate("order", order).jsonPayload("{\"n\":1}");
        return (tenant == null ? b : b.tenant(tenant)).build();
    }

    private static String actuator(String path) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create(actuatorBase + path))
                        .header("Accept", "application/json")
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }
}
