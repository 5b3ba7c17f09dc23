package io.txoutbox.server;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Prometheus (the {@code prometheus} binary of Debian's package) on a free loopback port, with a
 * configuration and storage of its own in a temporary folder, scraping one target every second and
 * evaluating the given rule file every second. {@link #close()} stops it and removes the folder.
 */
final class RealPrometheus implements AutoCloseable {
    private final Process process;
    private final Path dir;
    final String base;

    private RealPrometheus(Process process, Path dir, String base) {
        this.process = process;
        this.dir = dir;
        this.base = base;
    }

    /**
     * @param job the scrape job's name
     * @param target {@code host:port} of the target's {@code /metrics}
     * @param rules the rule file to load
     * @return a Prometheus that is ready to answer queries
     */
    static RealPrometheus start(String job, String target, Path rules) throws IOException {
        Path dir = Files.createTempDirectory("txoutbox-prometheus");
        Path config = TestSupport.write(dir, "prometheus.yml", """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                  evaluation_interval: 1s
                rule_files:
                  - %s
                scrape_configs:
                  - job_name: %s
                    metrics_path: /metrics
                    static_configs:
                      - targets: ['%s']
                """.formatted(rules.toAbsolutePath(), job, target));
        int port = TestSupport.freePort();
        Process p = new ProcessBuilder(List.of(
                        "prometheus",
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port,
                        "--log.level=warn"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        RealPrometheus prometheus = new RealPrometheus(p, dir, "http://127.0.0.1:" + port);
        try {
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> TestSupport.http("GET", prometheus.base + "/-/ready", null, null)
                                    .status()
                            == 200);
        } catch (RuntimeException e) {
            String log = Files.readString(dir.resolve("prometheus.log"));
            prometheus.close();
            throw new IllegalStateException("Prometheus did not start: " + log, e);
        }
        return prometheus;
    }

    /** @return the {@code data} of an API call's answer; the call must succeed */
    JsonNode api(String path, String param, String value) {
        String url = base + path + "?" + param + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
        TestSupport.Response r = TestSupport.http("GET", url, null, null);
        JsonNode body = r.json();
        if (r.status() != 200 || !body.path("status").asText().equals("success")) {
            throw new AssertionError(path + " " + value + ": HTTP " + r.status() + " " + r.body());
        }
        return body.path("data");
    }

    /** @return the series that match a selector */
    JsonNode series(String selector) {
        return api("/api/v1/series", "match[]", selector);
    }

    /** @return the result of an instant query, now */
    JsonNode query(String expr) {
        return api("/api/v1/query", "query", expr).path("result");
    }

    /** @return the rule groups as the rules API answers them */
    JsonNode rules() {
        TestSupport.Response r = TestSupport.http("GET", base + "/api/v1/rules", null, null);
        return r.json().path("data").path("groups");
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
