package io.txoutbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.server.TestSupport;
import io.txoutbox.server.yaml.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A YAML value reaches a string setting exactly as it was typed, whatever YAML 1.1 would have made of it
 * (a hexadecimal, octal or underscored number, a float, a boolean word); an alias is refused naming its
 * key and line, never replaced by its anchor's name; numbers still set numeric settings.
 */
class YamlScalarsTest {
    private static final String VALID = TestSupport.yaml("srv_never_created", "http://127.0.0.1:9/hook", false, "");

    @ParameterizedTest(name = "token: {0}")
    @ValueSource(
            strings = {
                "0x1234567890abcdef1234",
                "01234567890123456789",
                "0123456701234567",
                "1234_5678_9012_3456_7890",
                "0b1010101010101010101",
                "+12345678901234567890",
                "-1234567890123456789",
                "12345678901234567890.50",
                "1.5e+300000000000000",
                "0x_FFFF_FFFF_FFFF_FFFF",
                "190:20:30:40:50:60:70",
                "2001-12-14t21:59:43.10-05:00",
            })
    void a_token_that_yaml_would_read_as_a_number_keeps_its_text(String token) {
        ServerConfig c = parse(VALID.replace("token: " + TestSupport.TOKEN, "token: " + token));
        assertThat(c.admin().token().value()).isEqualTo(token);
    }

    @ParameterizedTest(name = "password: {0}")
    @ValueSource(strings = {"0123", "0x10", "1_000", "1.50", "1e3", "yes", "off", "y", "N", "True", ".inf", "0o17"})
    void a_password_that_yaml_would_read_as_a_number_or_a_boolean_keeps_its_text(String password) {
        ServerConfig c = parse(VALID.replace("password: not-a-real-password-xyz", "password: " + password));
        assertThat(c.sources().get(0).password().value()).isEqualTo(password);
    }

    @Test
    void numbers_and_booleans_still_set_numeric_and_boolean_settings() {
        ServerConfig c = parse(VALID.replace("poll-interval: 500ms", "poll-interval: 500ms\n      batch-size: 200")
                .replace("  port: 0", "  port: 8081")
                .replace("create-schema: false", "create-schema: yes"));
        assertThat(c.sources().get(0).relay().settings().batchSize()).isEqualTo(200);
        assertThat(c.admin().port()).isEqualTo(8081);
        assertThat(c.sources().get(0).createSchema()).isTrue();
        assertThat(c.sources().get(0).relay().settings().pollInterval()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void every_relay_setting_of_the_library_is_a_key_without_the_server_declaring_it() {
        ServerConfig c = parse(VALID.replace(
                "poll-interval: 500ms",
                "poll-interval: 500ms\n      lease-owner-prefix: pod-7.orders\n      max-batch-bytes: 2097152"));
        assertThat(c.sources().get(0).relay().settings().leaseOwnerPrefix()).isEqualTo("pod-7.orders");
        assertThat(c.sources().get(0).relay().settings().maxBatchBytes()).isEqualTo(2_097_152);
        assertThatThrownBy(() -> parse(
                        VALID.replace("poll-interval: 500ms", "poll-interval: 500ms\n      lease-owner-prefix: pod 7")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("sources[0].relay.lease-owner-prefix: is 'pod 7'; it must be 1 to 128 letters");
    }

    @Test
    void every_outbox_setting_a_source_takes_is_read_and_refused_through_the_library() {
        ServerConfig c = parse(VALID.replace("create-schema: false", "create-schema: false\n    fair-claims: Tenant"));
        assertThat(c.sources().get(0).outbox().fairClaims()).isEqualTo(io.txoutbox.ClaimFairness.TENANT);
        assertThatThrownBy(() ->
                        parse(VALID.replace("create-schema: false", "create-schema: false\n    fair-claims: loud")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].fair-claims: expected one of tenant, destination, got 'loud'");
        assertThatThrownBy(() -> parse(VALID.replace(
                        "create-schema: false",
                        "create-schema: false\n    dialect: mariadb\n    published-partitions: 1d")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "sources[0].published-partitions: needs PostgreSQL's declarative partitions; the mariadb");
    }

    @Test
    void a_webhook_setting_is_read_and_refused_through_the_library_under_its_key() {
        String webhook = VALID.lines()
                .filter(l -> l.strip().equals("allow-private-networks: true"))
                .findFirst()
                .orElseThrow();
        String indent = webhook.substring(0, webhook.indexOf('a'));
        assertThat(parse(VALID.replace(webhook, webhook + "\n" + indent + "remember-accepted-deliveries: 50")))
                .isNotNull();
        assertThatThrownBy(() -> parse(VALID.replace(webhook, webhook + "\n" + indent + "max-concurrent-requests: 0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageEndingWith(
                        "transport.webhook.max-concurrent-requests: is 0; it must be between 1 and 10000");
        assertThatThrownBy(() -> parse(VALID.replace(webhook, webhook + "\n" + indent + "request-timeout: 0s")))
                .hasMessageEndingWith("transport.webhook.request-timeout: is 0s; it must be positive");
    }

    @Test
    void a_number_that_is_not_decimal_is_refused_for_a_numeric_setting_not_converted() {
        assertThatThrownBy(() ->
                        parse(VALID.replace("poll-interval: 500ms", "poll-interval: 500ms\n      batch-size: 0x10")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sources[0].relay.batch-size: expected an integer, got '0x10'");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            scalar alias   | '  token: test-token-0123456789abcdef' | '  token: *tok'                                      | admin.token: is an alias (*tok) at line 4
            mapping alias  | '      backoff: {base: 200ms, max: 1s}' | '      backoff: *tok'                               | sources[0].relay.backoff: is an alias (*tok) at line
            merge key      | '      backoff: {base: 200ms, max: 1s}' | '      <<: *tok'                                    | sources[0].relay.<<: is an alias (*tok) at line
            list item      | 'types: ["*"]'                          | 'types: [*tok]'                                     | sources[0].routes[1].types[0]: is an alias (*tok) at line
            """)
    void an_alias_is_refused_naming_its_key_and_line_never_read_as_the_anchors_name(
            String name, String find, String replace, String expected) {
        String yaml = VALID.replace("  host: 127.0.0.1", "  host: &tok 127.0.0.1");
        assertThat(yaml.replace(find, replace))
                .as("the test's replacement applies")
                .isNotEqualTo(yaml);
        assertThatThrownBy(() -> parse(yaml.replace(find, replace)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(expected)
                .hasMessageContaining("aliases are not supported");
    }

    @Test
    void an_anchor_without_an_alias_changes_nothing() {
        ServerConfig c = parse(VALID.replace("  host: 127.0.0.1", "  host: &h 127.0.0.1"));
        assertThat(c.admin().host()).isEqualTo("127.0.0.1");
    }

    @Test
    void a_key_given_twice_is_still_refused_naming_its_path() {
        assertThatThrownBy(() -> parse(VALID.replace("  host: 127.0.0.1", "  host: 127.0.0.1\n  host: 0.0.0.0")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("admin.host: is given twice (again at line 3); give each key once");
    }

    @Test
    void an_empty_key_is_refused_naming_the_mapping_and_line() {
        assertThatThrownBy(() -> parse(VALID.replace("  port: 0", "  port: 0\n  \"\": x")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("admin: has an empty key at line 4");
        assertThatThrownBy(() -> parse("\"\": x\n" + VALID))
                .isInstanceOf(ConfigException.class)
                .hasMessage("(root): has an empty key at line 1");
    }

    @Test
    void a_jdbc_url_the_driver_fails_on_is_refused_naming_the_key() {
        // The configuration fuzz target's finding: pgjdbc's acceptsURL throws StringIndexOutOfBoundsException.
        assertThatThrownBy(() -> parse(VALID.replace(TestSupport.PG_URL, "jdbc:postgresql://,/sslpassword")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "sources[0].jdbc-url: the JDBC driver cannot read 'jdbc:postgresql://,/sslpassword'");
    }

    @Test
    void a_second_document_is_refused() {
        assertThatThrownBy(() -> parse(VALID + "---\nadmin:\n  host: 0.0.0.0\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("(file): has a second YAML document");
    }

    private static ServerConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, k -> null);
    }
}
