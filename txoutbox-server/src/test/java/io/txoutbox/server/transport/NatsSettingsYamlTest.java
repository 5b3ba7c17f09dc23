package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.nats.NatsSettings;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.config.ConfigLoader;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.spi.Publisher;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A {@code transport: {nats: ...}} section's library settings are read through {@link NatsSettings}'s
 * descriptors: a value reaches the publisher, a value out of bounds is refused by the library's rule under
 * its YAML key, and the server README's table of them is generated from the descriptors (this test fails
 * when it drifts, and rewrites it when run with {@code -Dtxoutbox.regenerate=true}: {@code ./mvnw -pl
 * txoutbox-server test -Dtest=NatsSettingsYamlTest -Dtxoutbox.regenerate=true}).
 */
class NatsSettingsYamlTest {
    private static final Path README = Path.of("README.md");
    private static final String VALID = TestSupport.yaml("srv_never_created", "http://127.0.0.1:9/hook", false, "");
    private static final String SERVERS = "servers: 'nats://127.0.0.1:4222'";
    private static final String KEY = "sources[0].routes[1].transport.nats";

    /** @return the test configuration with its second route sent to NATS with these settings */
    private static String nats(String settings) {
        assertThat(VALID).contains("transport: log");
        return VALID.replace("transport: log", "transport: {nats: {" + SERVERS + settings + "}}");
    }

    private static ServerConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, k -> null);
    }

    private static NatsTransport.NatsSpec spec(ServerConfig c) {
        return (NatsTransport.NatsSpec) c.sources().get(0).routes().get(1).transport();
    }

    @Test
    void the_librarys_settings_reach_the_publisher_under_their_keys() {
        ServerConfig c =
                parse(nats(", subject-prefix: events., publish-timeout: 2500ms, connection-name: orders-relay"));
        NatsTransport.NatsSpec spec = spec(c);
        assertThat(spec.key()).isEqualTo(KEY);
        assertThat(spec.settings().subjectPrefix()).isEqualTo("events.");
        assertThat(spec.settings().publishTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(spec.settings().connectionName()).isEqualTo("orders-relay");
        assertThat(spec.describe()).contains("prefix 'events.' + subject by aggregate type");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString())
                    .isEqualTo("NatsPublisher[nats://127.0.0.1:4222, subjectPrefix=events., publishTimeout=2500 ms]");
        }
    }

    @Test
    void unset_settings_take_the_librarys_defaults() {
        NatsTransport.NatsSpec spec = spec(parse(nats("")));
        assertThat(spec.settings().subjectPrefix()).isEmpty();
        assertThat(spec.settings().publishTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(spec.settings().connectionName()).isEqualTo("txoutbox");
    }

    @Test
    void a_value_out_of_bounds_is_refused_by_the_librarys_rule_under_its_key() {
        assertThatThrownBy(() -> parse(nats(", publish-timeout: 0s")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(KEY + ".publish-timeout: is 0s; it must be positive");
        assertThatThrownBy(() -> parse(nats(", publish-timeout: 11m")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(KEY + ".publish-timeout: is 11m; it must be at most 10m");
        assertThatThrownBy(() -> parse(nats(", subject-prefix: 'events.*.'")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        KEY + ".subject-prefix: is 'events.*.'; it must start a subject NATS can publish to");
        assertThatThrownBy(() -> parse(nats(", connection-name: ' '")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(KEY + ".connection-name: is ' '; it must not be blank");
        assertThatThrownBy(() -> parse(nats(", publish-timeout: soon")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(KEY + ".publish-timeout: expected a duration");
    }

    @Test
    void the_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("nats", SettingsTable.markdown(NatsSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
