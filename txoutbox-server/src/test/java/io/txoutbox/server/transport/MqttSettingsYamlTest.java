package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.mqtt.MqttSettings;
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
 * The MQTT publisher's settings ({@link MqttSettings}) are read from {@code transport: {mqtt: ...}} through
 * their descriptors: a value out of bounds is refused by the library's rule under its YAML key, a valid one
 * reaches the publisher the parsed configuration opens (against the local Mosquitto, 127.0.0.1:1883), and
 * the server README's table of them is generated from the descriptors: this test fails when it drifts, and
 * rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl txoutbox-server test
 * -Dtest=MqttSettingsYamlTest -Dtxoutbox.regenerate=true}).
 */
class MqttSettingsYamlTest {
    private static final Path README = Path.of("README.md");

    /** @return a configuration with one route to MQTT on this machine, with these extra keys */
    private static String yaml(String mqttKeys) {
        return TestSupport.oneRoute("mqtt:\n  server-uri: tcp://127.0.0.1:1883\n" + mqttKeys.indent(2));
    }

    private static ServerConfig parse(String yaml) {
        return TestSupport.parse(yaml);
    }

    @Test
    void an_out_of_range_setting_is_refused_by_the_library_under_its_key() {
        assertThatThrownBy(() -> parse(yaml("qos: 3")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].routes[0].transport.mqtt.qos: is 3; it must be 1 or 2 (QoS 0 is never"
                        + " acknowledged, so no publish could be confirmed)");
        assertThatThrownBy(() -> parse(yaml("completion-timeout: 0s")))
                .hasMessage("sources[0].routes[0].transport.mqtt.completion-timeout: is 0s; it must be positive");
        assertThatThrownBy(() -> parse(yaml("keep-alive: 250ms")))
                .hasMessage("sources[0].routes[0].transport.mqtt.keep-alive: is 250ms; it must be 1 to 65,535 seconds");
        assertThatThrownBy(() -> parse(yaml("max-inflight: 70000")))
                .hasMessage(
                        "sources[0].routes[0].transport.mqtt.max-inflight: is 70000; it must be between 1 and 65535");
        assertThatThrownBy(() -> parse(yaml("topic-prefix: 'outbox/+/'")))
                .hasMessage("sources[0].routes[0].transport.mqtt.topic-prefix: is 'outbox/+/'; it must not contain"
                        + " the wildcards '+' or '#' or a NUL character");
    }

    @Test
    void a_value_of_the_wrong_type_is_named_by_the_server_before_any_rule() {
        assertThatThrownBy(() -> parse(yaml("format: xml")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].routes[0].transport.mqtt.format: expected one of envelope, raw, got 'xml'");
    }

    @Test
    void valid_settings_reach_the_publisher_of_the_parsed_configuration() {
        ServerConfig config = parse(yaml("client-id: orders-relay-yaml\nqos: 2\ntopic-prefix: outbox/\nformat: RAW\n"
                + "completion-timeout: 250ms\nkeep-alive: 10s\nmax-inflight: 16"));
        Transports.Spec spec = config.sources().get(0).routes().get(0).transport();
        assertThat(spec.describe()).contains("qos 2", "prefix 'outbox/'");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString())
                    .contains(
                            "clientId=orders-relay-yaml",
                            "qos=2",
                            "format=RAW",
                            "completionTimeout=250 ms",
                            "maxInflight=16");
        }
        // The defaults, where nothing is given.
        try (Publisher publisher = parse(yaml("username: relay"))
                .sources()
                .get(0)
                .routes()
                .get(0)
                .transport()
                .open()) {
            assertThat(publisher.toString())
                    .contains(
                            "clientId=txoutbox",
                            "qos=1",
                            "format=ENVELOPE",
                            "completionTimeout=5000 ms",
                            "maxInflight=1000");
        }
    }

    @Test
    void the_server_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("mqtt", SettingsTable.markdown(MqttSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
