package io.txoutbox.server.cli;

import static io.txoutbox.server.TestSupport.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.server.TestReceiver;
import io.txoutbox.server.TestSupport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code run --check} applies the webhook address policy before it connects: with {@code
 * allow-private-networks} false (the default), an endpoint on this machine is a check failure naming the
 * route and the setting, and the listener there sees no connection at all.
 */
class CheckPrivateNetworkTest {
    /** Never created: with create-schema the check only says it would create it. */
    private static final String TABLE = TestSupport.uniqueTable("srv_check_ssrf");

    @TempDir
    Path dir;

    private ServerSocketChannel listener;

    @BeforeEach
    void listen() throws Exception {
        listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        // Non-blocking: accept() answers at once whether a connection is waiting in the backlog.
        listener.configureBlocking(false);
    }

    @AfterEach
    void close() throws Exception {
        listener.close();
    }

    private String yaml(String host, boolean allowPrivate) throws Exception {
        int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        return """
                admin:
                  host: 127.0.0.1
                  port: %d
                  token: %s
                sources:
                  - name: orders
                    jdbc-url: %s
                    user: %s
                    table: %s
                    create-schema: true
                    routes:
                      - types: ["*"]
                        transport:
                          webhook:
                            allow-private-networks: %s
                            endpoints:
                              - name: billing
                                url: http://%s:%d/hook
                                secret: %s
                """.formatted(
                        TestSupport.freePort(),
                        TestSupport.TOKEN,
                        TestSupport.PG_URL,
                        TestSupport.PG_USER,
                        TABLE,
                        allowPrivate,
                        host,
                        port,
                        TestReceiver.SECRET);
    }

    private TestSupport.CliResult check(String yaml) throws Exception {
        return cli(
                Map.of(),
                "run",
                "--check",
                "--config",
                TestSupport.write(dir, "check.yaml", yaml).toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "127.0.0.1"})
    void check_refuses_a_private_webhook_address_naming_route_and_setting_and_connects_to_nothing(String host)
            throws Exception {
        TestSupport.CliResult r = check(yaml(host, false));

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.out())
                .contains("check: sources[0].routes[0].transport.webhook (route 'webhook', types [*]): FAILED:"
                        + " sources[0].routes[0].transport.webhook.allow-private-networks: WebhookEndpoint 'billing'"
                        + " is refused: '" + host + "'")
                .contains("a loopback address (127.0.0.0/8); private networks are refused")
                .contains("check failed: 1 problem(s); nothing was changed")
                .doesNotContain(TestReceiver.SECRET);
        assertThat(r.err())
                .contains("configuration error: sources[0].routes[0].transport.webhook.allow-private-networks:")
                .doesNotContain(TestReceiver.SECRET);
        try (SocketChannel connected = listener.accept()) {
            assertThat(connected)
                    .as("a connection reached the listener on 127.0.0.1")
                    .isNull();
        }
    }

    @Test
    void check_connects_to_the_same_address_once_private_networks_are_allowed() throws Exception {
        // The control of the test above: the configuration really leads to the listener.
        TestSupport.CliResult r = check(yaml("localhost", true));

        assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("check: sources[0].routes[0].transport.webhook (route 'webhook', types [*]): OK:"
                        + " webhook endpoint(s) accept TCP connections at [localhost:");
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            try (SocketChannel connected = listener.accept()) {
                assertThat(connected).isNotNull();
            }
        });
    }
}
