package io.txoutbox.demo;

import static io.txoutbox.server.TestSupport.cli;
import static io.txoutbox.server.TestSupport.http;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.server.TestReceiver;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.TxoutboxServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code txoutbox demo} in a child JVM, as a newcomer runs it: events flow, and --duration ends it with 0. */
class DemoTest {
    private static final Pattern URL = Pattern.compile("Dashboard\\s+http://localhost:(\\d+)/#token=([0-9a-f]+)");

    @TempDir
    Path dir;

    @Test
    void demo_prints_the_dashboard_url_shows_events_flowing_and_dead_ones_then_exits_0() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path output = dir.resolve("demo.log");
        Process p = TestSupport.childJvm(
                DemoMain.class.getName(),
                output,
                "demo",
                "--port",
                Integer.toString(port),
                "--duration",
                "25",
                "--rate",
                "10");
        try {
            Matcher[] m = new Matcher[1];
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                m[0] = URL.matcher(Files.readString(output, StandardCharsets.UTF_8));
                return m[0].find();
            });
            assertThat(Integer.parseInt(m[0].group(1))).isEqualTo(port);
            String token = m[0].group(2);
            String stats = "http://127.0.0.1:" + port + "/api/sources/orders/stats";
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                var s = http("GET", stats, token, null).json();
                return s.path("relayed").path("published").asLong() > 20
                        && s.path("dead").asLong() > 0;
            });
            assertThat(http("GET", "http://127.0.0.1:" + port + "/", null, null).body())
                    .contains("<canvas id=\"chart\"");

            assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
            String log = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(log).isZero();
            assertThat(log).contains("--duration 25s is over").contains("stopped cleanly");
            // The banner hands the token over (its dashboard URL and its export line); every other
            // line, the log included, goes through the redacting output.
            assertThat(log.split(token, -1)).as(log).hasSize(3);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void demo_fails_clearly_when_the_port_is_taken() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            TestSupport.CliResult r =
                    cli(List.of(new DemoCommand()), Map.of(), "demo", "--port", Integer.toString(taken.getLocalPort()));
            assertThat(r.exitCode()).isEqualTo(2);
            assertThat(r.err()).contains("--port: port " + taken.getLocalPort() + " on 127.0.0.1 is already in use");
        }
    }

    @Test
    void the_demo_configuration_is_a_valid_example() {
        List<String> routes = TxoutboxServer.routes(
                DemoRunner.demoYaml(),
                Map.of(
                        "DEMO_PORT", "0",
                        "DEMO_TOKEN", "0123456789abcdef0123",
                        "DEMO_JDBC_URL", "jdbc:postgresql://localhost:1/x",
                        "DEMO_RECEIVER_URL", "http://127.0.0.1:1/hooks",
                        "DEMO_WEBHOOK_SECRET", TestReceiver.SECRET)::get);
        assertThat(routes).hasSize(2);
        assertThat(routes.get(0)).contains("webhook").doesNotContain("whsec");
    }
}
