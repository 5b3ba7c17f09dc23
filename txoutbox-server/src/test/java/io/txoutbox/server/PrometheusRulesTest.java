package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The operations kit's Prometheus rules, checked by Prometheus's own {@code promtool} (Debian's {@code
 * prometheus} package, which {@code .ci/run} installs): they load, and their unit tests in {@code
 * txoutbox-rules.test.yml} pass.
 */
class PrometheusRulesTest {
    static final Path RULES = OpsFixture.KIT.resolve("prometheus");

    /** What a run of {@code promtool} printed and returned. */
    record Run(int exitCode, String output) {}

    static Run promtool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command)
                .directory(RULES.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
        return new Run(p.exitValue(), out);
    }

    @Test
    void the_rules_load_and_name_every_alert_the_kit_promises() throws Exception {
        Run r = promtool("check", "rules", "txoutbox-rules.yml");
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS");
        String rules = OpsFixture.kitFile("prometheus/txoutbox-rules.yml");
        assertThat(rules)
                .contains(
                        "alert: TxoutboxServerDown",
                        "alert: TxoutboxRelayNotClaiming",
                        "alert: TxoutboxOldestPendingTooOld",
                        "alert: TxoutboxDeadEventsGrowing",
                        "alert: TxoutboxRouteFailing",
                        "alert: TxoutboxRoutePublishErrors",
                        "alert: TxoutboxWakeupsFailing",
                        "alert: TxoutboxDatabaseUnreachable");
    }

    @Test
    void every_alert_has_a_unit_test() throws Exception {
        String tests = OpsFixture.kitFile("prometheus/txoutbox-rules.test.yml");
        Matcher alert = Pattern.compile("(?m)^\\s*- alert: (\\S+)")
                .matcher(OpsFixture.kitFile("prometheus/txoutbox-rules.yml"));
        List<String> untested = new ArrayList<>();
        while (alert.find()) {
            if (!tests.contains("alertname: " + alert.group(1) + "\n")) {
                untested.add(alert.group(1));
            }
        }
        assertThat(untested).as("alerts without a promtool test").isEmpty();
    }

    @Test
    void the_rules_unit_tests_pass_under_promtool() throws Exception {
        Run r = promtool("test", "rules", "txoutbox-rules.test.yml");
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS").doesNotContain("FAILED");
    }
}
