package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.jms.JmsSettings;
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
 * The JMS publisher's settings ({@link JmsSettings}) are read from {@code transport: {jms: ...}} through
 * their descriptors: a value out of bounds is refused by the library's rule under its YAML key, a valid
 * one reaches the parsed configuration and the publisher it opens (against a port nobody listens on: the
 * publisher connects in the background, and nothing is sent), and the server README's table of them is
 * generated from the descriptors: this test fails when it drifts, and rewrites it when run with {@code
 * -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl txoutbox-server test -Dtest=JmsSettingsYamlTest
 * -Dtxoutbox.regenerate=true}).
 */
class JmsSettingsYamlTest {
    private static final Path README = Path.of("README.md");
    private static final String KEY = "sources[0].routes[0].transport.jms";
    /** Nobody listens on port 1; a window, so that asynchronous sends are allowed. */
    private static final String NOWHERE = "tcp://127.0.0.1:1?confirmationWindowSize=1048576";

    /** @return a configuration with one JMS route, with these extra keys */
    private static String yaml(String jmsKeys) {
        return TestSupport.oneRoute("jms:\n  broker-url: '" + NOWHERE + "'\n" + jmsKeys.indent(2));
    }

    private static ServerConfig parse(String yaml) {
        return TestSupport.parse(yaml);
    }

    @Test
    void an_out_of_range_setting_is_refused_by_the_library_under_its_key() {
        assertThatThrownBy(() -> parse(yaml("sessions: 65")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(KEY + ".sessions: is 65; it must be between 1 and 64");
        assertThatThrownBy(() -> parse(yaml("publish-timeout: 11m")))
                .hasMessage(KEY + ".publish-timeout: is 11m; it must be at most 10m");
        assertThatThrownBy(() -> parse(yaml("publish-timeout: 0s")))
                .hasMessage(KEY + ".publish-timeout: is 0s; it must be positive");
    }

    @Test
    void a_value_of_the_wrong_type_is_named_by_the_server_before_any_rule() {
        assertThatThrownBy(() -> parse(yaml("destination-type: mailbox")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(KEY + ".destination-type: expected one of queue, topic, got 'mailbox'");
        assertThatThrownBy(() -> parse(yaml("async-send: maybe")))
                .hasMessageStartingWith(KEY + ".async-send: expected");
    }

    @Test
    void valid_settings_reach_the_publisher_of_the_parsed_configuration() {
        ServerConfig config =
                parse(yaml("destination-type: Topic\nsessions: 2\nasync-send: true\npublish-timeout: 250ms"));
        Transports.Spec spec = config.sources().get(0).routes().get(0).transport();
        assertThat(spec.describe()).endsWith(", bare names are topics, asynchronous sends");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString())
                    .contains("destinationType=TOPIC", "sessions=2", "asyncSend=true", "publishTimeout=250 ms");
        }
        // The defaults, where nothing is given.
        Transports.Spec defaults =
                parse(yaml("")).sources().get(0).routes().get(0).transport();
        assertThat(defaults.describe()).endsWith(", bare names are queues");
        try (Publisher publisher = defaults.open()) {
            assertThat(publisher.toString())
                    .contains("destinationType=QUEUE", "sessions=4", "asyncSend=false", "publishTimeout=5000 ms");
        }
    }

    @Test
    void the_server_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("jms", SettingsTable.markdown(JmsSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
