package io.txoutbox.server;

import static io.txoutbox.server.TestSupport.TOKEN;
import static io.txoutbox.server.TestSupport.count;
import static io.txoutbox.server.TestSupport.http;
import static io.txoutbox.server.TestSupport.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.txoutbox.server.cli.RelayServer;
import io.txoutbox.server.config.ConfigLoader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Thousands of event types cannot grow /metrics or the stats answer without bound. */
class CardinalityTest {
    private static final int TYPES = 5_000;
    private static final int BOUND = 50;

    private final String table = TestSupport.uniqueTable("srv_types");
    private RelayServer server;

    @AfterEach
    void cleanUp() {
        TestSupport.cleanUp(table, server);
    }

    @Test
    void five_thousand_event_types_keep_metrics_and_stats_bounded_with_the_rest_counted_as_other() {
        server = RelayServer.start(ConfigLoader.parse(
                TestSupport.HEAD + """
                  - name: many
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    relay: {batch-size: 1000, poll-interval: 300ms}
                    transport: {log: {level: debug}}
                """.formatted(TestSupport.PG_URL, TestSupport.PG_USER, table), k -> null));
        String api = "http://127.0.0.1:" + server.port() + "/api/sources/many";
        assertThat(http("POST", api + "/pause", TOKEN, "").status()).isEqualTo(200);
        sql("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload)"
                + " SELECT gen_random_uuid(), 'a', 'a-' || i, 'type.' || lpad(i::text, 4, '0'), '\\x7b7d'::bytea"
                + " FROM generate_series(1, " + TYPES + ") i");

        JsonNode pending = http("GET", api + "/stats", TOKEN, null).json();
        assertThat(pending.path("types").asInt()).isEqualTo(TYPES);
        assertThat(pending.path("byType").size()).isEqualTo(BOUND + 1);
        assertThat(pending.path("byType").path("<other>").path("pending").asLong())
                .isEqualTo(TYPES - BOUND);

        assertThat(http("POST", api + "/resume", TOKEN, "").status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM " + table) == 0);

        String metrics = http("GET", "http://127.0.0.1:" + server.port() + "/metrics", null, null)
                .body();
        Matcher series = Pattern.compile(
                        "(?m)^txoutbox_events_published_events_total\\{.*type=\"([^\"]*)\".*\\} (\\S+)$")
                .matcher(metrics);
        int lines = 0;
        double other = 0;
        double total = 0;
        while (series.find()) {
            lines++;
            total += Double.parseDouble(series.group(2));
            if (series.group(1).equals("<other>")) {
                other = Double.parseDouble(series.group(2));
            }
        }
        assertThat(lines).isEqualTo(BOUND + 1);
        assertThat(total).isEqualTo(TYPES);
        assertThat(other).isEqualTo(TYPES - BOUND);
        assertThat(metrics.getBytes(StandardCharsets.UTF_8).length).isLessThan(100_000);

        JsonNode relayed = http("GET", api + "/stats", TOKEN, null).json().path("relayed");
        assertThat(relayed.path("byType").size()).isEqualTo(BOUND + 1);
        assertThat(relayed.path("byType").path("<other>").path("published").asLong())
                .isEqualTo(TYPES - BOUND);
        assertThat(relayed.path("published").asLong()).isEqualTo(TYPES);
    }
}
