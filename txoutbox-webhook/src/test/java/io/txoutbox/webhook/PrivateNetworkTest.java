package io.txoutbox.webhook;

import static io.txoutbox.webhook.Events.event;
import static io.txoutbox.webhook.WebhookPublisherTest.SECRET;
import static io.txoutbox.webhook.WebhookPublisherTest.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.Promise;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Server-side request forgery protection. Every refusal here happens before any request: no test sends
 * traffic to a non-loopback address (refused literals never reach the HttpClient, stub names end in
 * {@code .invalid}, which never resolves, and classification uses literals only).
 */
class PrivateNetworkTest {

    @RegisterExtension
    static final TestReceiver receiver =
            TestReceiver.started(WebhookVerifier.builder().secret(SECRET).build());

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "http://127.0.0.1:{port}/hooks   | '127.0.0.1', a loopback address",
                "http://127.1.2.3/hooks          | a loopback address",
                "http://[::1]:{port}/hooks       | '::1', a loopback address",
                "http://10.1.2.3/hooks           | '10.1.2.3', a private address",
                "http://172.16.0.1/hooks         | a private address",
                "http://192.168.1.1/hooks        | a private address",
                "http://169.254.169.254/latest   | '169.254.169.254', a link-local address",
                "http://[fe80::1]/hooks          | a link-local address",
                "http://[fd00::1]/hooks          | a unique-local address (fc00::/7)",
                "http://0.0.0.0/hooks            | the unspecified address",
                "http://[::]/hooks               | the unspecified address",
                "http://224.0.0.1/hooks          | a multicast address",
                "http://100.64.0.1/hooks         | carrier-grade NAT",
                "http://[::ffff:127.0.0.1]/hooks | a loopback address",
                "https://[::ffff:a00:1]/hooks    | a private address",
            })
    void a_private_ip_literal_is_refused_at_build_unless_allowed(String url, String why) {
        String endpointUrl = url.replace("{port}", Integer.toString(receiver.port()));
        WebhookEndpoint endpoint = WebhookEndpoint.of(endpointUrl, SECRET);

        assertThatThrownBy(() -> WebhookPublisher.builder().endpoint(endpoint).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining(why)
                .hasMessageContaining("private networks are refused (WebhookPublisher.Builder.allowPrivateNetworks)")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("WebhookPublisher.allowPrivateNetworks");
        assertThat(receiver.requests()).isEmpty();
    }

    @Test
    void a_name_that_resolves_to_loopback_is_refused_at_send_time_and_nothing_is_sent() throws Exception {
        String url = "http://localhost:" + receiver.port() + "/hooks";
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of(url, SECRET))
                .build()) {
            PublishOutcome outcome = publish(publisher, event("order.placed")).get(0);

            assertThat(outcome.outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcome.reason())
                    .startsWith("refused: 'localhost' resolves to ")
                    .contains("a loopback address", "allowPrivateNetworks");
        }
        assertThat(receiver.requests()).as("no request reached the receiver").isEmpty();
    }

    @Test
    void the_same_name_is_sent_to_once_private_networks_are_allowed() throws Exception {
        String url = "http://localhost:" + receiver.port() + "/hooks";
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of(url, SECRET))
                .allowPrivateNetworks(true)
                .build()) {
            assertThat(publish(publisher, event("order.placed"))).containsExactly(PublishOutcome.PUBLISHED);
        }
        assertThat(receiver.accepted()).hasSize(1);
    }

    @Test
    void every_resolved_address_is_checked_so_one_private_address_among_public_ones_is_refused() throws Exception {
        PublishOutcome outcome = publishVia(
                host -> new InetAddress[] {InetAddress.getByName("93.184.216.34"), InetAddress.getByName("10.0.0.7")});
        assertThat(outcome)
                .isEqualTo(
                        PublishOutcome.dead(
                                "refused: 'hooks.invalid' resolves to 10.0.0.7, a private "
                                        + "address (10.0.0.0/8); private networks are refused (WebhookPublisher.Builder.allowPrivateNetworks)"));
    }

    @Test
    void a_name_that_resolves_to_the_cloud_metadata_address_is_refused() throws Exception {
        PublishOutcome outcome = publishVia(host -> new InetAddress[] {InetAddress.getByName("169.254.169.254")});
        assertThat(outcome.outcome()).isEqualTo(Outcome.DEAD);
        assertThat(outcome.reason()).contains("169.254.169.254, a link-local address");
    }

    @Test
    void a_name_that_does_not_resolve_retries() throws Exception {
        PublishOutcome outcome = publishVia(host -> {
            throw new UnknownHostException(host);
        });
        assertThat(outcome).isEqualTo(PublishOutcome.retry("cannot resolve host 'hooks.invalid'"));
    }

    @Test
    void the_address_checked_is_the_address_connected_so_a_rebinding_name_cannot_reach_loopback() throws Exception {
        // A rebinding name: a public address for the first lookup, loopback (the receiver) for any later one.
        AtomicInteger lookups = new AtomicInteger();
        AddressPolicy.Resolver rebinding = host -> lookups.getAndIncrement() == 0
                ? new InetAddress[] {InetAddress.getByName("93.184.216.34")}
                : new InetAddress[] {InetAddress.getLoopbackAddress()};
        // The connector records where the client asks to connect and connects to nothing, so that this test
        // sends no packet to the public address.
        List<SocketAddress> connects = new CopyOnWriteArrayList<>();
        ClientConnector recording = new ClientConnector() {
            @Override
            public void connect(SocketAddress address, Map<String, Object> context) {
                connects.add(address);
                @SuppressWarnings("unchecked")
                Promise<Object> promise = (Promise<Object>) context.get(ClientConnector.CONNECTION_PROMISE_CONTEXT_KEY);
                promise.failed(new ConnectException("test: not connecting to " + address));
            }
        };
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of("http://rebind.invalid:" + receiver.port() + "/hooks", SECRET))
                .resolver(rebinding)
                .connector(recording)
                .build()) {
            PublishOutcome first = publish(publisher, event("order.placed")).get(0);
            PublishOutcome second = publish(publisher, event("order.placed")).get(0);

            assertThat(first.outcome()).isEqualTo(Outcome.RETRY);
            assertThat(connects)
                    .as("the client connects only to the address that was checked")
                    .containsExactly(new InetSocketAddress(InetAddress.getByName("93.184.216.34"), receiver.port()));
            assertThat(second.outcome()).isEqualTo(Outcome.DEAD);
            assertThat(second.reason()).contains("'rebind.invalid' resolves to 127.0.0.1, a loopback address");
        }
        assertThat(receiver.requests())
                .as("nothing reached the loopback receiver")
                .isEmpty();
    }

    @Test
    void the_jdk_turns_mapped_bytes_into_ipv4_only_on_some_paths_so_the_policy_reads_bytes() throws Exception {
        byte[] mapped = raw("::ffff:127.0.0.1").getAddress();

        // InetAddress.getByAddress and literals convert; a resolver building an Inet6Address does not, and
        // the JDK's isLoopbackAddress() then says no although a connection to it reaches 127.0.0.1.
        assertThat(InetAddress.getByAddress("hooks.invalid", mapped)).isInstanceOf(Inet4Address.class);
        InetAddress answer = Inet6Address.getByAddress("hooks.invalid", mapped, -1);
        assertThat(answer).isInstanceOf(Inet6Address.class);
        assertThat(answer.isLoopbackAddress()).isFalse();
        assertThat(AddressPolicy.refusal(answer))
                .isEqualTo("an IPv4-mapped address (::ffff:0:0/96) carrying 127.0.0.1, a loopback address"
                        + " (127.0.0.0/8)");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "::ffff:127.0.0.1        | an IPv4-mapped address (::ffff:0:0/96) carrying 127.0.0.1, a loopback",
                "::ffff:169.254.169.254  | carrying 169.254.169.254, a link-local address (169.254.0.0/16)",
                "::ffff:10.0.0.1         | carrying 10.0.0.1, a private address (10.0.0.0/8)",
                "::ffff:0.0.0.0          | carrying 0.0.0.0, the unspecified address",
                "::ffff:100.100.100.200  | carrying 100.100.100.200, a shared (carrier-grade NAT) address",
                "::ffff:255.255.255.255  | carrying 255.255.255.255, the limited broadcast address",
                "::ffff:0:127.0.0.1      | an IPv4-translated address (::ffff:0:0:0/96) carrying 127.0.0.1",
                "::127.0.0.1             | IPv4-compatible address (::/96) carrying 127.0.0.1, a loopback",
                "64:ff9b::127.0.0.1      | a NAT64 address (64:ff9b::/96) carrying 127.0.0.1, a loopback",
                "64:ff9b:1::7f00:1       | a local-use NAT64 address (64:ff9b:1::/48)",
                "2002:7f00:1::1          | a 6to4 address (2002::/16) carrying 127.0.0.1, a loopback",
                "2001:0:808:808::80ff:fffe | a Teredo address (2001::/32) carrying client 127.0.0.1, a loopback",
            })
    void a_dns_answer_with_raw_ipv6_bytes_carrying_a_private_ipv4_address_is_refused(String literal, String why)
            throws Exception {
        InetAddress answer = raw(literal.strip());
        assertThat(answer).isInstanceOf(Inet6Address.class);

        String refusal = AddressPolicy.check("hooks.invalid", host -> new InetAddress[] {answer});

        assertThat(refusal)
                .startsWith("'hooks.invalid' resolves to " + answer.getHostAddress() + ", ")
                .contains(why.strip())
                .endsWith("; private networks are refused (WebhookPublisher.Builder.allowPrivateNetworks)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"::ffff:8.8.8.8", "::ffff:0:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1"})
    void a_dns_answer_with_raw_ipv6_bytes_carrying_a_public_ipv4_address_is_allowed(String literal) throws Exception {
        InetAddress answer = raw(literal);
        assertThat(AddressPolicy.check("hooks.invalid", host -> new InetAddress[] {answer}))
                .isNull();
    }

    @Test
    void a_name_answered_with_raw_ipv4_mapped_loopback_bytes_is_refused_and_the_local_listener_receives_nothing()
            throws Exception {
        AddressPolicy.Resolver mappedLoopback = host -> new InetAddress[] {raw("::ffff:127.0.0.1")};
        String url = "http://mapped.invalid:" + receiver.port() + "/hooks";
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of(url, SECRET))
                .resolver(mappedLoopback)
                .build()) {
            PublishOutcome outcome = publish(publisher, event("order.placed")).get(0);

            assertThat(outcome)
                    .isEqualTo(PublishOutcome.dead("refused: 'mapped.invalid' resolves to 0:0:0:0:0:ffff:7f00:1, an"
                            + " IPv4-mapped address (::ffff:0:0/96) carrying 127.0.0.1, a loopback address"
                            + " (127.0.0.0/8); private networks are refused"
                            + " (WebhookPublisher.Builder.allowPrivateNetworks)"));
        }
        assertThat(receiver.requests())
                .as("nothing reached the listener on 127.0.0.1")
                .isEmpty();
    }

    @Test
    void the_same_raw_mapped_answer_reaches_the_local_listener_once_private_networks_are_allowed() throws Exception {
        // The control of the test above: the answer really leads to the listener, so only the policy stopped it.
        AddressPolicy.Resolver mappedLoopback = host -> new InetAddress[] {raw("::ffff:127.0.0.1")};
        String url = "http://mapped.invalid:" + receiver.port() + "/hooks";
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of(url, SECRET))
                .resolver(mappedLoopback)
                .allowPrivateNetworks(true)
                .build()) {
            assertThat(publish(publisher, event("order.placed"))).containsExactly(PublishOutcome.PUBLISHED);
        }
        assertThat(receiver.accepted()).hasSize(1);
    }

    /**
     * @param literal an IPv6 literal
     * @return its 16 bytes as a resolver hands them over: an {@link Inet6Address}, even for {@code
     *     ::ffff:a.b.c.d}, which the JDK parses into an IPv4 address
     */
    static InetAddress raw(String literal) throws UnknownHostException {
        byte[] b = InetAddress.getByName(literal).getAddress();
        if (b.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(b, 0, mapped, 12, 4);
            b = mapped;
        }
        return Inet6Address.getByAddress("hooks.invalid", b, -1);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "::ffff:10.0.0.1         | a private address",
                "::ffff:0:7f00:1         | an IPv4-translated address (::ffff:0:0:0/96) carrying 127.0.0.1, a loopback address",
                "::10.0.0.1              | IPv4-compatible address (::/96) carrying 10.0.0.1, a private address",
                "64:ff9b::7f00:1         | a NAT64 address (64:ff9b::/96) carrying 127.0.0.1, a loopback address",
                "64:ff9b:1::a9fe:a9fe    | a local-use NAT64 address",
                "64:ff9b::a9fe:a9fe      | carrying 169.254.169.254, a link-local address (169.254.0.0/16)",
                "2002:c0a8:101::1        | a 6to4 address (2002::/16) carrying 192.168.1.1, a private address",
                "2001:0:4136:e378:8000:63bf:f5ff:fffe | a Teredo address (2001::/32) carrying client 10.0.0.1, a private address",
                "fec0::1                 | a deprecated site-local address (fec0::/10)",
                "fd12:3456::1            | a unique-local address",
                "fe80::1                 | a link-local address",
                "ff05::2                 | a multicast address",
                "100::1                  | discard-only",
                "2001:10::1              | ORCHID",
                "2001:db8::1             | documentation",
                "0.0.0.1                 | 0.0.0.0/8",
                "100.64.0.1              | carrier-grade NAT",
                "192.0.0.9               | IETF protocol assignments address (192.0.0.0/24)",
                "192.0.2.1               | documentation",
                "198.51.100.1            | documentation",
                "203.0.113.1             | documentation",
                "192.88.99.1             | 6to4 relay anycast",
                "198.19.255.255          | benchmarking",
                "240.0.0.1               | reserved",
                "255.255.255.255         | broadcast",
                "169.254.169.254         | a link-local address",
                "fd00:ec2::254           | a unique-local address",
                "2001:2::1               | a benchmarking address (2001:2::/48)",
                "3fff::1                 | a documentation address (3fff::/20)",
                "3fff:fff:ffff::1        | a documentation address (3fff::/20)",
                "2001:20::1              | an ORCHIDv2 address (2001:20::/28)",
                "2001:30::1              | a drone remote ID (DET) address (2001:30::/28)",
                "2001:1::1               | an IETF protocol assignments address (2001::/23)",
                "2001:1ff::1             | an IETF protocol assignments address (2001::/23)",
                "5f00::1                 | an SRv6 SID address (5f00::/16)",
                "100:0:0:1::1            | a dummy address (100:0:0:1::/64)",
                "64:ff9b:2::1            | a reserved address outside IPv6 global unicast (2000::/3)",
                "4000::1                 | a reserved address outside IPv6 global unicast (2000::/3)",
                "2001:0:a00:1::f7f7:f7f7 | a Teredo address (2001::/32) carrying server 10.0.0.1, a private address",
                "2001:0:808:808::f7f7:f7f7 | a Teredo address (2001::/32)",
                "192.0.0.170             | an IETF protocol assignments address (192.0.0.0/24)",
                "::ffff:0.0.0.0          | the unspecified address (0.0.0.0/32)",
            })
    void special_purpose_ranges_are_refused(String literal, String why) throws Exception {
        assertThat(AddressPolicy.refusal(InetAddress.getByName(literal.strip())))
                .as(literal)
                .contains(why.strip());
    }

    private static PublishOutcome publishVia(AddressPolicy.Resolver resolver) throws Exception {
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.of("https://hooks.invalid/orders", SECRET))
                .resolver(resolver)
                .build()) {
            return publish(publisher, event("order.placed")).get(0);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "127.0.0.1",
                "10.0.0.1",
                "172.31.255.255",
                "192.168.0.1",
                "169.254.0.1",
                "0.1.2.3",
                "100.127.0.1",
                "198.18.0.1",
                "224.0.0.251",
                "255.255.255.255",
                "::1",
                "::",
                "fe80::1",
                "fc00::1",
                "fdff::1",
                "fec0::1",
                "ff02::1",
                "::a00:1",
                "64:ff9b::a00:1",
                "2002:7f00:1::",
                "2002:a9fe:a9fe::"
            })
    void refused_addresses(String literal) throws Exception {
        assertThat(AddressPolicy.refusal(InetAddress.getByName(literal)))
                .as(literal)
                .isNotNull();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "8.8.8.8",
                "1.1.1.1",
                "93.184.216.34",
                "172.32.0.1",
                "172.15.255.255",
                "192.169.0.1",
                "100.128.0.1",
                "2606:4700:4700::1111",
                "2001:4860:4860::8888",
                "64:ff9b::808:808",
                "2002:808:808::",
                "3fff:1000::1",
                "2001:200::1",
                "2003::1",
                "2620:4f:8000::1",
                "192.31.196.1",
                "198.20.0.1",
                "223.255.255.255"
            })
    void public_addresses(String literal) throws Exception {
        assertThat(AddressPolicy.refusal(InetAddress.getByName(literal)))
                .as(literal)
                .isNull();
    }
}
