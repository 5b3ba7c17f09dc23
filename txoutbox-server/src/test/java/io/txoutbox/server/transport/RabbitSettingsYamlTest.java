package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.rabbitmq.RabbitSettings;
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
 * The RabbitMQ publisher's settings ({@link RabbitSettings}) are read from {@code transport: {rabbitmq:
 * ...}} through their descriptors: a value out of bounds is refused by the library's rule under its YAML
 * key, a valid one reaches the publisher the parsed configuration opens (against the local RabbitMQ,
 * 127.0.0.1:5672, guest/guest), and the server README's table of them is generated from the descriptors:
 * this test fails when it drifts, and rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code
 * ./mvnw -pl txoutbox-server test -Dtest=RabbitSettingsYamlTest -Dtxoutbox.regenerate=true}).
 */
class RabbitSettingsYamlTest {
    private static final Path README = Path.of("README.md");

    /** @return a configuration with one route to RabbitMQ on this machine, with these extra keys */
    private static String yaml(String rabbitKeys) {
        return TestSupport.oneRoute("rabbitmq:\n  host: 127.0.0.1\n" + rabbitKeys.indent(2));
    }

    private static ServerConfig parse(String yaml) {
        return TestSupport.parse(yaml);
    }

    @Test
    void an_out_of_range_setting_is_refused_by_the_library_under_its_key() {
        assertThatThrownBy(() -> parse(yaml("confirm-timeout: 11m")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].routes[0].transport.rabbitmq.confirm-timeout: is 11m; it must be at most 10m");
        assertThatThrownBy(() -> parse(yaml("confirm-timeout: 0s")))
                .hasMessage("sources[0].routes[0].transport.rabbitmq.confirm-timeout: is 0s; it must be positive");
        assertThatThrownBy(() -> parse(yaml("connection-name: ' '")))
                .hasMessage("sources[0].routes[0].transport.rabbitmq.connection-name: is ' '; it must not be blank");
        assertThatThrownBy(() -> parse(yaml("exchange: " + "x".repeat(256))))
                .hasMessageStartingWith("sources[0].routes[0].transport.rabbitmq.exchange: is 'xxx")
                .hasMessageEndingWith("(256 characters); it must be at most 255 bytes in UTF-8 (an AMQP short string)");
    }

    @Test
    void a_value_of_the_wrong_type_is_named_by_the_server_before_any_rule() {
        assertThatThrownBy(() -> parse(yaml("confirm-timeout: soon")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "sources[0].routes[0].transport.rabbitmq.confirm-timeout: expected a duration such as 500ms");
    }

    @Test
    void valid_settings_reach_the_publisher_of_the_parsed_configuration() {
        ServerConfig config =
                parse(yaml("exchange: amq.direct\nconfirm-timeout: 250ms\nconnection-name: orders-relay"));
        Transports.Spec spec = config.sources().get(0).routes().get(0).transport();
        assertThat(spec.describe()).contains("exchange 'amq.direct'");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString()).contains("exchange=amq.direct", "confirmTimeout=250 ms");
        }
        // The defaults, where nothing is given.
        try (Publisher publisher = parse(yaml("port: 5672"))
                .sources()
                .get(0)
                .routes()
                .get(0)
                .transport()
                .open()) {
            assertThat(publisher.toString()).contains("exchange=(default)", "confirmTimeout=5000 ms");
        }
    }

    @Test
    void the_server_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("rabbitmq", SettingsTable.markdown(RabbitSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
