package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.kafka.KafkaSettings;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.spi.Publisher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The Kafka publisher's settings ({@link KafkaSettings}) are read from {@code transport: {kafka: ...}}
 * through their descriptors: a value out of bounds is refused by the library's rule under its YAML key, a
 * valid one reaches the publisher the parsed configuration opens (its producer is created without
 * connecting, so no broker is needed), and the server README's table of them is generated from the
 * descriptors: this test fails when it drifts, and rewrites it when run with {@code
 * -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl txoutbox-server test -Dtest=KafkaSettingsYamlTest
 * -Dtxoutbox.regenerate=true}).
 */
class KafkaSettingsYamlTest {
    private static final Path README = Path.of("README.md");

    /** @return a configuration with one route to a Kafka address nothing listens on, with these extra keys */
    private static String yaml(String kafkaKeys) {
        return TestSupport.HEAD
                + """
                  - name: orders
                    jdbc-url: %s
                    user: %s
                    table: srv_never_created
                    routes:
                      - types: ["*"]
                        transport:
                          kafka:
                            bootstrap-servers: 127.0.0.1:9
                            %s
                """.formatted(
                        TestSupport.PG_URL, TestSupport.PG_USER, kafkaKeys.replace("\n", "\n" + " ".repeat(12)));
    }

    private static ServerConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, k -> null);
    }

    private static Transports.Spec spec(String kafkaKeys) {
        return parse(yaml(kafkaKeys)).sources().get(0).routes().get(0).transport();
    }

    @Test
    void an_out_of_range_setting_is_refused_by_the_library_under_its_key() {
        assertThatThrownBy(() -> parse(yaml("request-timeout: 0s")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].routes[0].transport.kafka.request-timeout: is 0s; it must be positive");
        assertThatThrownBy(() -> parse(yaml("delivery-timeout: 30d")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "sources[0].routes[0].transport.kafka.delivery-timeout: is 30d; it must be" + " at most ");
        assertThatThrownBy(() -> parse(yaml("topic-prefix: ' '")))
                .hasMessage("sources[0].routes[0].transport.kafka.topic-prefix: is ' '; it must not be blank (leave it"
                        + " unset for none)");
    }

    @Test
    void a_delivery_timeout_shorter_than_the_request_timeout_is_refused_under_its_key_when_opened() {
        Transports.Spec spec = spec("request-timeout: 5s\ndelivery-timeout: 4s");
        assertThatThrownBy(spec::open)
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].routes[0].transport.kafka.delivery-timeout: 4000 ms is shorter than"
                        + " sources[0].routes[0].transport.kafka.request-timeout 5000 ms + linger.ms 5 ms; Kafka"
                        + " needs it at least as long");
    }

    @Test
    void valid_settings_reach_the_publisher_of_the_parsed_configuration() {
        Transports.Spec spec = spec("topic-prefix: prod.\nrequest-timeout: 2s\ndelivery-timeout: 3500ms");
        assertThat(spec.describe()).contains("prefix 'prod.'");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString()).contains("requestTimeout=2000 ms", "deliveryTimeout=3500 ms");
        }
        // The defaults, where nothing is given.
        try (Publisher publisher = spec("route-by: aggregate-type").open()) {
            assertThat(publisher.toString()).contains("requestTimeout=5000 ms", "deliveryTimeout=8000 ms");
        }
    }

    @Test
    void the_server_readme_table_is_the_descriptors() throws IOException {
        String doc = Files.readString(README, StandardCharsets.UTF_8);
        String want = SettingsTable.replace(doc, "kafka", SettingsTable.markdown(KafkaSettings.SETTINGS, s -> s.key()));
        if (Boolean.getBoolean("txoutbox.regenerate")) {
            Files.writeString(README, want, StandardCharsets.UTF_8);
        }
        assertThat(doc)
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isEqualTo(want);
    }
}
