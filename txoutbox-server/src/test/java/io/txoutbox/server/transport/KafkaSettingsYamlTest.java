package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.kafka.KafkaSettings;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.spi.Publisher;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
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
        return TestSupport.oneRoute("kafka:\n  bootstrap-servers: 127.0.0.1:9\n" + kafkaKeys.indent(2));
    }

    private static ServerConfig parse(String yaml) {
        return TestSupport.parse(yaml);
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
        assertThat(SettingsTable.current(
                        README,
                        Map.of("kafka", SettingsTable.markdown(KafkaSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
