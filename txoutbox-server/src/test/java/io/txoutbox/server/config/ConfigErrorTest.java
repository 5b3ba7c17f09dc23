package io.txoutbox.server.config;

import static io.txoutbox.server.TestSupport.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.server.TestReceiver;
import io.txoutbox.server.TestSupport;
import io.txoutbox.server.source.RoutingPublisher;
import io.txoutbox.server.transport.LogSink;
import io.txoutbox.server.yaml.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A wrong configuration stops the server at start-up with a message naming the key, and exit code 2. */
class ConfigErrorTest {
    @TempDir
    Path dir;

    private static final String VALID = TestSupport.yaml("srv_never_created", "http://127.0.0.1:9/hook", false, "");

    @Test
    void unknown_key_is_named_and_the_child_process_exits_2() throws Exception {
        Path config = TestSupport.write(dir, "bad.yaml", VALID.replace("poll-interval: 500ms", "pol-interval: 500ms"));
        Path output = dir.resolve("out.txt");
        Process p = TestSupport.childJvm(output, "run", "--config", config.toString());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(2);
        assertThat(out).contains("configuration error: sources[0].relay.pol-interval: unknown key");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            wrong type       | 'poll-interval: 500ms'            | 'batch-size: ten'                     | sources[0].relay.batch-size: expected an integer, got 'ten'
            out of range     | 'poll-interval: 500ms'            | 'batch-size: 0'                       | sources[0].relay.batch-size: is 0; it must be between 1 and 10000
            bad duration     | 'poll-interval: 500ms'            | 'poll-interval: soon'                 | sources[0].relay.poll-interval: expected a duration
            attempts         | 'poll-interval: 500ms'            | 'max-attempts: 0'                     | sources[0].relay.max-attempts: is 0; it must be between 1 and 1000
            zero poll        | 'poll-interval: 500ms'            | 'poll-interval: 0s'                   | sources[0].relay.poll-interval: is 0s; it must be positive
            min over default | 'poll-interval: 500ms'            | 'min-poll-interval: 3s'               | sources[0].relay.min-poll-interval: is 3s; it must not be longer than sources[0].relay.poll-interval (2s)
            negative retain  | 'poll-interval: 500ms'            | 'retain-published: -PT1S'             | sources[0].relay.retain-published: is PT-1S; it must not be negative
            backoff factor   | 'backoff: {base: 200ms, max: 1s}' | 'backoff: {factor: 0.5}'              | sources[0].relay.backoff.factor: is 0.5; it must be 1 or more
            backoff max      | 'backoff: {base: 200ms, max: 1s}' | 'backoff: {base: 2s, max: 1s}'        | sources[0].relay.backoff.max: is 1s; it must be at least sources[0].relay.backoff.base (2s)
            lease vs timeout | 'poll-interval: 500ms'            | 'publish-timeout: 40s'                | sources[0].relay.lease-duration: is 30s; it must be longer than sources[0].relay.publish-timeout (40s)
            not a JDBC URL   | 'jdbc-url: jdbc:postgresql:'      | 'jdbc-url: postgres:'                 | sources[0].jdbc-url: 'postgres://localhost
            no driver        | 'jdbc-url: jdbc:postgresql:'      | 'jdbc-url: jdbc:oracle:'              | sources[0].jdbc-url: no bundled JDBC driver accepts
            bad table name   | 'table: srv_never_created'        | 'table: drop-table'                   | sources[0].table:
            unknown dialect  | 'table: srv_never_created'        | 'dialect: oracle'                     | sources[0].dialect: 'oracle' is unknown
            webhook URL      | 'url: http://127.0.0.1:9/hook'    | 'url: ftp://example.com/hook'         | sources[0].routes[0].transport.webhook.endpoints[0].url:
            short secret     | 'secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' | 'secret: short'        | sources[0].routes[0].transport.webhook.endpoints[0].secret:
            sqs by name only | 'transport: log'                  | 'transport: sqs'                      | sources[0].routes[1].transport.sqs.region: is required
            unknown transport| 'transport: log'                  | 'transport: carrier-pigeon'           | sources[0].routes[1].transport: unknown transport 'carrier-pigeon'
            missing env      | 'user: postgres'                  | 'user: ${TXOUTBOX_TEST_UNSET_USER}'   | sources[0].user: environment variable TXOUTBOX_TEST_UNSET_USER is not set
            short token      | 'token: test-token-0123456789abcdef' | 'token: abc'                       | admin.token: is 3 characters; it must be at least 16
            ordered contradiction | 'create-schema: false'       | 'dead-head: skip'                     | sources[0].dead-head: only applies with ordered: true
            """)
    void configuration_error_names_the_key(String name, String find, String replace, String expected) {
        assertRefused(replacing(find, replace), expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            int overflow           | 'batch-size: 0'     | 'batch-size: 99999999999'          | sources[0].relay.batch-size: 99999999999 is too large; it must be between -2147483648 and 2147483647
            long overflow          | 'batch-size: 0'     | 'batch-size: 99999999999999999999' | sources[0].relay.batch-size: '99999999999999999999' is too large
            duration digits        | 'batch-size: 0'     | 'poll-interval: 99999999999999999999s' | sources[0].relay.poll-interval: '99999999999999999999s' is too long; the longest duration accepted is 36525d
            duration overflow      | 'batch-size: 0'     | 'lease-duration: 9223372036854775807d' | sources[0].relay.lease-duration: '9223372036854775807d' is too long
            duration absurd        | 'batch-size: 0'     | 'retain-published: 40000d'         | sources[0].relay.retain-published: '40000d' is too long
            iso overflow           | 'batch-size: 0'     | 'poll-interval: PT9999999999999999999H' | sources[0].relay.poll-interval:
            """)
    void overflowing_numbers_and_durations_name_the_key(String name, String find, String replace, String expected) {
        String yaml = VALID.replace("poll-interval: 500ms", find);
        yaml = yaml.replace(find, replace);
        assertRefused(yaml, expected).doesNotContain("NumberFormatException");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            admin host twice      | '  host: 127.0.0.1'        | '  host: 127.0.0.1\\n  host: 0.0.0.0'                 | admin.host: is given twice (again at line 3)
            relay key twice       | '      poll-interval: 500ms' | '      poll-interval: 500ms\\n      poll-interval: 1s' | sources[0].relay.poll-interval: is given twice
            second routes list    | '    routes:'              | '    routes: []\\n    routes:'                        | sources[0].routes: is given twice
            endpoint key twice    | '                secret: whsec' | '                secret: x\\n                secret: whsec' | sources[0].routes[0].transport.webhook.endpoints[0].secret: is given twice
            """)
    void a_key_given_twice_is_refused_naming_its_path(String name, String find, String replace, String expected) {
        assertRefused(replacing(find, replace.replace("\\n", "\n")), expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not whole hours | published-partitions: 90m | sources[0].published-partitions: is 90m; it must be a whole number of hours between 1 hour and 31 days
            not postgresql  | published-partitions: 1d\\n    dialect: mariadb | sources[0].published-partitions: needs PostgreSQL's declarative partitions; the mariadb dialect
            """)
    void published_partitions_are_refused_by_the_library_under_their_key(String name, String keys, String expected) {
        String yaml =
                VALID.replace("    create-schema: false", "    create-schema: false\n    " + keys.replace("\\n", "\n"));
        assertRefused(yaml, expected);
    }

    @Test
    void missing_table_is_named_with_the_fix() {
        TestSupport.CliResult r = run(VALID);
        assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
        assertThat(r.err())
                .contains("configuration error: sources[0].table:")
                .contains("srv_never_created' does not exist")
                .contains("create-schema: true");
    }

    @Test
    void database_that_refuses_the_connection_is_named() {
        TestSupport.CliResult r = run(VALID.replace(TestSupport.PG_URL, "jdbc:postgresql://127.0.0.1:9/test")
                .replace("create-schema: false", "create-schema: false\n    connect-timeout: 1s"));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("sources[0].jdbc-url: cannot connect");
        assertThat(r.err()).doesNotContain("not-a-real-password-xyz");
    }

    @Test
    void yaml_syntax_error_names_the_line() {
        TestSupport.CliResult r = run("admin:\n  token: [unclosed\n");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("(file): not valid YAML at line");
    }

    @Test
    void missing_file_and_unknown_option_are_usage_errors() {
        assertThat(cli(Map.of(), "run", "--config", dir.resolve("nope.yaml").toString())
                        .err())
                .contains("--config: file")
                .contains("does not exist");
        TestSupport.CliResult unknown = cli(Map.of(), "run", "--config", "x.yaml", "--confg", "y.yaml");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("'--confg'").contains("Possible solutions: --config");
        assertThat(cli(Map.of(), "schema", "--dialect", "oracle").exitCode()).isEqualTo(2);
    }

    @Test
    void schema_prints_a_dialects_ddl_for_the_table_without_a_database() {
        TestSupport.CliResult printed = cli(Map.of(), "schema", "--dialect", "mariadb", "--table", "orders_outbox");
        assertThat(printed.exitCode()).isZero();
        assertThat(printed.out())
                .contains("CREATE TABLE IF NOT EXISTS orders_outbox (")
                .contains("KEY orders_outbox_due_idx (status, available_at, seq)")
                .doesNotContain("{table}");
    }

    @Test
    void placeholders_read_the_environment_with_defaults_and_secrets_print_masked() {
        String yaml = VALID.replace("password: not-a-real-password-xyz", "password: ${TEST_DB_PASSWORD}")
                .replace("batch-size", "batch-size")
                .replace("poll-interval: 500ms", "poll-interval: ${TEST_POLL:-750ms}");
        ServerConfig c = ConfigLoader.parse(yaml, Map.of("TEST_DB_PASSWORD", "s3cret-value")::get);
        assertThat(c.sources().get(0).password().value()).isEqualTo("s3cret-value");
        assertThat(c.sources().get(0).relay().settings().pollInterval()).isEqualTo(Duration.ofMillis(750));
        assertThat(c.toString())
                .doesNotContain("s3cret-value")
                .doesNotContain(TestSupport.TOKEN)
                .contains("****");
    }

    @Test
    void routing_prefers_exact_types_then_the_longest_prefix() {
        RoutingPublisher p = new RoutingPublisher(java.util.List.of(
                new RoutingPublisher.Target(java.util.List.of("*"), "log", new LogSink(true)),
                new RoutingPublisher.Target(java.util.List.of("order.*"), "a", new LogSink(true)),
                new RoutingPublisher.Target(java.util.List.of("order.placed"), "b", new LogSink(true)),
                new RoutingPublisher.Target(java.util.List.of("order.item.*"), "c", new LogSink(true))));
        assertThat(p.route("order.placed")).isEqualTo(2);
        assertThat(p.route("order.paid")).isEqualTo(1);
        assertThat(p.route("order.item.added")).isEqualTo(3);
        assertThat(p.route("customer.x")).isZero();
        RoutingPublisher none = new RoutingPublisher(
                java.util.List.of(new RoutingPublisher.Target(java.util.List.of("order.*"), "a", new LogSink(true))));
        assertThat(none.route("customer.x")).isEqualTo(-1);
        assertThatThrownBy(() -> ConfigLoader.parse(VALID.replace("types: [\"*\"]", "types: [\"or*der\"]"), k -> null))
                .hasMessageContaining("sources[0].routes[1].types[0]: 'or*der' is invalid");
    }

    @Test
    void a_yaml_error_names_line_and_column_and_quotes_no_line_of_the_file() {
        assertThatThrownBy(() -> ConfigLoader.parse(
                        "admin:\n  token: yaml-t0ken-quoted\n  password: yaml-pa55-quoted: x: y\n", k -> null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not valid YAML at line 3")
                .hasMessageContaining("mapping values are not allowed here")
                .hasMessageNotContaining("yaml-pa55-quoted")
                .hasMessageNotContaining("yaml-t0ken-quoted");
    }

    @Test
    void the_configuration_prints_its_urls_and_secrets_redacted() {
        ServerConfig config = ConfigLoader.parse(
                VALID.replace(
                                "jdbc-url: " + TestSupport.PG_URL,
                                "jdbc-url: jdbc:mariadb://bob:pr1nt-p@ss:w0rd@h/db?sslpassword=pr1nt-ssl-pw&ssl=true")
                        .replace("not-a-real-password-xyz", "pr1nt-config-pw"),
                k -> null);
        assertThat(config.toString())
                .contains("jdbc:mariadb://****@h/db?sslpassword=****&ssl=true")
                .doesNotContain("pr1nt", "w0rd", TestSupport.TOKEN, TestReceiver.SECRET);
    }

    /** @return {@link #VALID} with {@code find} replaced, after checking that {@code find} is in it */
    private static String replacing(String find, String replace) {
        String yaml = VALID.replace(find, replace);
        assertThat(yaml).as("the test's replacement applies").isNotEqualTo(VALID);
        return yaml;
    }

    /** Checks the configuration, expects exit code 2 and the message; returns the error output for more. */
    private AbstractStringAssert<?> assertRefused(String yaml, String expected) {
        TestSupport.CliResult r = run(yaml);
        assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
        return assertThat(r.err()).contains("configuration error: " + expected);
    }

    private TestSupport.CliResult run(String yaml) {
        try {
            Path config = TestSupport.write(dir, "config.yaml", yaml);
            return cli(Map.of(), "run", "--check", "--config", config.toString());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
