package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operations kit against a real Prometheus scraping a running relay server (events published on two
 * routes, one dead, and the database taken away for a moment so that claims and wake-ups fail): every
 * metric the alerting rules and the Grafana dashboard name exists with the labels they use, read from the
 * rule and dashboard files themselves; every dashboard query answers data; every rule evaluates.
 */
class PrometheusScrapeTest {
    private static final String TABLE = TestSupport.uniqueTable("srv_ops_scrape");
    /** Grafana's variables, as a dashboard with every source selected and a short range resolves them. */
    private static final Map<String, String> GRAFANA = Map.of("$__rate_interval", "1m", "$source", ".+");

    static OpsFixture relay;
    static RealPrometheus prometheus;

    @BeforeAll
    static void start() throws Exception {
        relay = OpsFixture.start(TABLE, TestSupport.PG_USER, true);
        // The database goes away until a claim and the LISTEN connection have failed, and comes back.
        relay.database.cut();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            String metrics =
                    TestSupport.http("GET", relay.base + "/metrics", null, null).body();
            return metrics.contains("phase=\"claim\"") && metrics.contains("phase=\"listen\"");
        });
        relay.database.restore();
        prometheus = RealPrometheus.start(
                "txoutbox",
                "127.0.0.1:" + relay.server.port(),
                PrometheusRulesTest.RULES.resolve("txoutbox-rules.yml"));
        // rate() needs two samples of every series.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> prometheus
                                .query("count_over_time(txoutbox_route_events_total[1m])")
                                .path(0)
                                .path("value")
                                .path(1)
                                .asDouble()
                        >= 3);
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    /** @return every PromQL expression of the rule file: alerts and recordings */
    static Map<String, String> ruleExpressions() throws Exception {
        JsonNode rules = new YAMLMapper().readTree(OpsFixture.kitFile("prometheus/txoutbox-rules.yml"));
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                String name = rule.has("alert")
                        ? rule.path("alert").asText()
                        : rule.path("record").asText();
                out.put(name, rule.path("expr").asText());
            }
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    /** @return every query of the dashboard's panels, Grafana's variables resolved */
    static Map<String, String> dashboardExpressions() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(OpsFixture.kitFile("grafana/txoutbox.json"));
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                for (Map.Entry<String, String> v : GRAFANA.entrySet()) {
                    expr = expr.replace(v.getKey(), v.getValue());
                }
                assertThat(expr).as(panel.path("title").asText()).doesNotContain("$");
                out.put(
                        panel.path("title").asText() + " "
                                + target.path("refId").asText(),
                        expr);
            }
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    @Test
    void every_metric_the_rules_and_the_dashboard_name_exists_with_the_labels_they_use() throws Exception {
        Map<String, String> expressions = new LinkedHashMap<>(ruleExpressions());
        expressions.putAll(dashboardExpressions());
        Set<String> recorded = new TreeSet<>();
        for (String name : ruleExpressions().keySet()) {
            if (name.contains(":")) {
                recorded.add(name);
            }
        }
        Map<String, Set<String>> required = new LinkedHashMap<>();
        Set<String> selectors = new LinkedHashSet<>();
        for (String expr : expressions.values()) {
            PromQl.Analysis a = PromQl.analyze(expr);
            a.selectors().forEach(s -> selectors.add(s.text()));
            a.requiredLabels().forEach((metric, labels) -> required.computeIfAbsent(metric, k -> new TreeSet<>())
                    .addAll(labels));
        }
        // The dashboard's variable reads one metric's label too.
        JsonNode dashboard = new ObjectMapper().readTree(OpsFixture.kitFile("grafana/txoutbox.json"));
        Pattern labelValues = Pattern.compile("label_values\\((\\w+),\\s*(\\w+)\\)");
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            Matcher m = labelValues.matcher(variable.path("definition").asText());
            if (m.matches()) {
                required.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
                selectors.add(m.group(1));
            }
        }
        assertThat(required).containsKeys("up", "txoutbox_events_pending_events", "txoutbox_route_events_total");

        List<String> problems = new ArrayList<>();
        for (String selector : selectors) {
            if (PromQl.analyze(selector).selectors().get(0).metric().contains(":")) {
                continue;
            }
            if (prometheus.series(selector).isEmpty()) {
                problems.add("no series matches " + selector);
            }
        }
        for (Map.Entry<String, Set<String>> e : required.entrySet()) {
            String metric = e.getKey();
            if (metric.contains(":")) {
                if (!recorded.contains(metric)) {
                    problems.add(metric + " is not recorded by any rule");
                }
                continue;
            }
            Set<String> seen = new TreeSet<>();
            prometheus.series(metric).forEach(series -> series.fieldNames().forEachRemaining(seen::add));
            Set<String> missing = new TreeSet<>(e.getValue());
            missing.removeAll(seen);
            if (!missing.isEmpty()) {
                problems.add(metric + " has no label " + missing + " (it has " + seen + ")");
            }
        }
        assertThat(problems)
                .as("what the rules and the dashboard ask of the server's metrics")
                .isEmpty();
    }

    @Test
    void every_dashboard_query_answers_data_from_the_running_relay() throws Exception {
        Map<String, String> queries = dashboardExpressions();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            List<String> empty = new ArrayList<>();
            queries.forEach((panel, expr) -> {
                if (prometheus.query(expr).isEmpty()) {
                    empty.add(panel + ": " + expr);
                }
            });
            assertThat(empty).as("dashboard queries with no data").isEmpty();
        });
    }

    @Test
    void every_rule_evaluates_without_error_against_the_real_series() throws Exception {
        Set<String> expected = ruleExpressions().keySet();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            Map<String, String> health = new LinkedHashMap<>();
            for (JsonNode group : prometheus.rules()) {
                for (JsonNode rule : group.path("rules")) {
                    String state = rule.path("health").asText();
                    health.put(
                            rule.path("name").asText(),
                            state
                                    + (rule.hasNonNull("lastError")
                                            ? " " + rule.path("lastError").asText()
                                            : ""));
                }
            }
            assertThat(health.keySet()).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(health)
                    .allSatisfy((name, state) -> assertThat(state).as(name).isEqualTo("ok"));
        });
    }

    @Test
    void the_database_alert_fires_for_the_outage_the_relay_just_had() {
        // The claim errors of the cut are a new series within the last 5 minutes: the rule's expression is true.
        await().atMost(Duration.ofSeconds(15)).until(() -> !prometheus
                .query(ruleExpressionsUnchecked().get("TxoutboxDatabaseUnreachable"))
                .isEmpty());
        JsonNode fired = prometheus.query(ruleExpressionsUnchecked().get("TxoutboxDatabaseUnreachable"));
        assertThat(fired.get(0).path("metric").path("source").asText()).isEqualTo("orders");
        assertThat(fired.get(0).path("metric").path("table").asText()).isEqualTo(TABLE);
    }

    private static Map<String, String> ruleExpressionsUnchecked() {
        try {
            return ruleExpressions();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
