package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.redis.RedisSettings;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import io.txoutbox.settings.SettingsTable;
import io.txoutbox.spi.Publisher;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The redis transport's {@code stream-prefix}, {@code max-len} and {@code command-timeout} are the
 * library's settings ({@link RedisSettings}): read from YAML through their descriptors, refused by the
 * library's rules under their keys, and given to the publisher as they were read. The server README's
 * table of them is generated from the descriptors: {@link #the_readme_table_is_the_descriptors()} fails when
 * it drifts, and rewrites it when run with {@code -Dtxoutbox.regenerate=true} ({@code ./mvnw -pl
 * txoutbox-server test -Dtest=RedisSettingsYamlTest -Dtxoutbox.regenerate=true}).
 */
class RedisSettingsYamlTest {
    private static final Path README = Path.of("README.md");
    private static final String SECTION = "sources[0].routes[0].transport.redis";

    /**
     * @param redisSettings more keys of the redis section, as a YAML flow mapping's entries ({@code max-len:
     *     5, command-timeout: 1s}), or none
     * @return a configuration whose one route goes to the local Redis, with these settings
     */
    private static String yaml(String redisSettings) {
        return TestSupport.oneRoute(
                "redis: {uri: 'redis://127.0.0.1:6379'" + (redisSettings.isEmpty() ? "" : ", " + redisSettings) + "}");
    }

    private static ServerConfig parse(String yaml) {
        return TestSupport.parse(yaml);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            negative max-len     | 'max-len: -5'               | max-len: is -5; it must be between 0 and 1099511627776
            max-len too large    | 'max-len: 1099511627777'    | max-len: is 1099511627777; it must be between 0 and 1099511627776
            zero command-timeout | 'command-timeout: 0s'       | command-timeout: is 0s; it must be positive
            """)
    void a_value_out_of_bounds_is_refused_by_the_library_under_its_key(String name, String setting, String expected) {
        assertThatThrownBy(() -> parse(yaml(setting)))
                .isInstanceOf(ConfigException.class)
                .hasMessage(SECTION + "." + expected)
                .satisfies(e -> assertThat(((ConfigException) e).key())
                        .isEqualTo(SECTION + "." + expected.substring(0, expected.indexOf(':'))));
    }

    @Test
    void valid_values_reach_the_parsed_config_and_the_publisher() throws Exception {
        ServerConfig c = parse(yaml("stream-prefix: 'outbox:', max-len: 1000, command-timeout: 250ms"));
        Transports.Spec spec = c.sources().get(0).routes().get(0).transport();
        assertThat(spec.describe())
                .isEqualTo("redis redis://127.0.0.1:6379, prefix 'outbox:' + stream by aggregate type, MAXLEN ~1000");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString()).contains("maxLen=~1000").contains("commandTimeout=250 ms");
        }
    }

    @Test
    void unset_values_take_the_librarys_defaults() throws Exception {
        Transports.Spec spec = parse(yaml("")).sources().get(0).routes().get(0).transport();
        assertThat(spec.describe()).isEqualTo("redis redis://127.0.0.1:6379, stream by aggregate type");
        try (Publisher publisher = spec.open()) {
            assertThat(publisher.toString()).contains("maxLen=none").contains("commandTimeout=5000 ms");
        }
    }

    @Test
    void the_readme_table_is_the_descriptors() throws IOException {
        assertThat(SettingsTable.current(
                        README,
                        Map.of("redis", SettingsTable.markdown(RedisSettings.SETTINGS, s -> s.key())),
                        Boolean.getBoolean("txoutbox.regenerate")))
                .as("regenerate with -Dtxoutbox.regenerate=true (see this test's Javadoc)")
                .isTrue();
    }
}
