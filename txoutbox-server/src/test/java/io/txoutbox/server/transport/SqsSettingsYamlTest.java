package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.server.TestSupport;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.spi.Publisher;
import io.txoutbox.sqs.SqsSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SQS publisher's settings ({@link SqsSettings}) are read from {@code transport: {sqs: ...}} through
 * their descriptors: a value out of bounds is refused by the library's rule under its YAML key, a valid one
 * reaches the publisher the parsed configuration opens (its client is created, nothing is sent), and the
 * server README's table of them is generated from the descriptors: this test fails when it drifts, and
 * rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl txoutbox-server test
 * -Dtest=SqsSettingsYamlTest -Dtxoutbox.regenerate=true}).
 */
class SqsSettingsYamlTest {
    private static final Path README = Path.of("README.md");
    private static final String KEY = "sources[0].routes[0].transport.sqs";

    /** @return a configuration with one route to SQS in a region, through a local endpoint, with these keys */
    private static String yaml(String sqsKeys) {
        return TestSupport.oneRoute(
                "sqs:\n  region: eu-west-1\n  endpoint: http://127.0.0.1:9324\n" + sqsKeys.indent(2));
    }

    private static ServerConfig parse(String yaml) {
        return TestSupport.parse(yaml);
    }

    @Test
    void an_out_of_range_setting_is_refused_by_the_library_under_its_key() {
        assertThatThrownBy(() -> parse(yaml("publish-timeout: 11m")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(KEY + ".publish-timeout: is 11m; it must be at most 10m");
        assertThatThrownBy(() -> parse(yaml("publish-timeout: 0s")))
                .hasMessage(KEY + ".publish-timeout: is 0s; it must be positive");
        assertThatThrownBy(() -> parse(yaml("max-message-bytes: 2000000")))
                .hasMessage(KEY + ".max-message-bytes: is 2000000; it must be between 1024 and 1048576");
        assertThatThrownBy(() -> parse(yaml("max-concurrency: 1001")))
                .hasMessage(KEY + ".max-concurrency: is 1001; it must be between 1 and 1000");
        assertThatThrownBy(() -> parse(yaml("queue-prefix: prod.")))
                .hasMessage(KEY + ".queue-prefix: is 'prod.'; it must start a queue name"
                        + " (letters, digits, '-' and '_', at most 79 characters)");
    }

    @Test
    void a_value_of_the_wrong_type_is_named_by_the_server_before_any_rule() {
        assertThatThrownBy(() -> parse(yaml("max-concurrency: many")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(KEY + ".max-concurrency: expected an integer, got 'many'");
    }

    @Test
    void valid_settings_reach_the_publisher_of_the_parsed_configuration() {
        ServerConfig config = parse(
                yaml("queue-prefix: prod-\npublish-timeout: 2500ms\nmax-message-bytes: 4096\nmax-concurrency: 8"));
        Transports.Spec spec = config.sources().get(0).routes().get(0).transport();
        assertThat(spec.describe()).contains("prefix 'prod-'");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString())
                    .contains("queuePrefix=prod-", "maxMessageBytes=4096", "publishTimeout=2500 ms");
        }
        // The defaults, where nothing is given.
        try (Publisher publisher = parse(yaml("fifo: false"))
                .sources()
                .get(0)
                .routes()
                .get(0)
                .transport()
                .open()) {
            assertThat(publisher.toString())
                    .doesNotContain("queuePrefix")
                    .contains("maxMessageBytes=262144", "publishTimeout=5000 ms");
        }
    }

    @Test
    void the_server_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("sqs", SettingsTable.markdown(SqsSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
