package io.txoutbox.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the webhook address policy with a resolver that answers arbitrary address bytes, built the ways
 * the JDK and a resolver may build them. Property: the verdict of the policy, and of the pinning resolver
 * the HTTP client connects through, equals an independent classification written here from the IANA
 * special-purpose registries; the answer is handed over whole when allowed and not at all when refused;
 * nothing but the documented refusal is ever thrown.
 *
 * <p>Input: a sequence of answers, at most eight, each a kind byte and then 4 or 16 address bytes (zeros
 * when the input ends early). Kind {@code & 3}: 0 four bytes through {@code InetAddress.getByAddress}; 1
 * sixteen bytes through {@code Inet6Address.getByAddress} (an {@code Inet6Address} even when mapped); 2
 * sixteen bytes through {@code InetAddress.getByAddress} (the JDK makes an IPv4 address of mapped bytes); 3
 * as 1 with the scope id {@code kind >>> 2}.
 */
class AddressPolicyFuzzTest {
    private static final String HOST = "hooks.invalid";
    private static final int PORT = 443;

    @FuzzTest(maxDuration = "10m")
    void policy_verdict_equals_the_registry_classification(byte[] input) throws Exception {
        List<InetAddress> answers = answers(input);
        AddressPolicy.Resolver resolver = host -> answers.toArray(InetAddress[]::new);
        List<InetSocketAddress> sockets =
                answers.stream().map(a -> new InetSocketAddress(a, PORT)).toList();

        InetAddress firstRefused = null;
        for (InetAddress answer : answers) {
            boolean refused = Registry.refuses(answer.getAddress());
            String why = AddressPolicy.refusal(answer);
            assertThat(why != null).as("%s refused", answer.getHostAddress()).isEqualTo(refused);
            if (answer instanceof Inet6Address) {
                // The same 16 bytes as the JDK hands them over on its other path: the same verdict.
                InetAddress converted = InetAddress.getByAddress(HOST, answer.getAddress());
                assertThat(AddressPolicy.refusal(converted) != null)
                        .as(
                                "%s as %s",
                                answer.getHostAddress(), converted.getClass().getSimpleName())
                        .isEqualTo(refused);
            }
            if (refused && firstRefused == null) {
                firstRefused = answer;
            }
        }

        PinningResolver guarded = new PinningResolver(resolver, false, Runnable::run);
        if (answers.isEmpty()) {
            assertThatThrownBy(() -> guarded.pinned(HOST, PORT))
                    .isInstanceOf(PinningResolver.RefusedAddressException.class)
                    .hasMessage("'" + HOST + "' resolves to no address");
        } else if (firstRefused != null) {
            assertThatThrownBy(() -> guarded.pinned(HOST, PORT))
                    .isInstanceOf(PinningResolver.RefusedAddressException.class)
                    .hasMessage("'" + HOST + "' resolves to " + firstRefused.getHostAddress() + ", "
                            + AddressPolicy.refusal(firstRefused)
                            + "; private networks are refused (WebhookPublisher.Builder.allowPrivateNetworks)");
        } else {
            assertThat(guarded.pinned(HOST, PORT)).containsExactlyElementsOf(sockets);
        }

        PinningResolver open = new PinningResolver(resolver, true, Runnable::run);
        if (answers.isEmpty()) {
            assertThatThrownBy(() -> open.pinned(HOST, PORT)).isInstanceOf(UnknownHostException.class);
        } else {
            assertThat(open.pinned(HOST, PORT)).containsExactlyElementsOf(sockets);
        }
    }

    private static List<InetAddress> answers(byte[] input) throws UnknownHostException {
        List<InetAddress> answers = new ArrayList<>();
        int i = 0;
        while (i < input.length && answers.size() < 8) {
            int kind = input[i++] & 0xFF;
            int shape = kind & 3;
            int length = shape == 0 ? 4 : 16;
            byte[] bytes = Arrays.copyOfRange(input, i, i + length);
            i += length;
            answers.add(
                    switch (shape) {
                        case 0, 2 -> InetAddress.getByAddress(HOST, bytes);
                        case 1 -> Inet6Address.getByAddress(HOST, bytes, -1);
                        default -> Inet6Address.getByAddress(HOST, bytes, kind >>> 2);
                    });
        }
        return answers;
    }

    /**
     * The reference: the blocks of the IANA IPv4 and IPv6 special-purpose address registries that are not
     * globally reachable, as numbers, written independently of {@link AddressPolicy}'s tables. Blocks of
     * which IANA marks a few single anycast addresses global (192.0.0.0/24, 2001::/23) count as a whole;
     * IPv6 outside 2000::/3 is unallocated or special (ULA, link-local, multicast, 5f00::/16, 100::/64, ...)
     * apart from the forms that carry an IPv4 address, which are as global as that address.
     */
    static final class Registry {
        private static final List<BigInteger[]> V4 = blocks(
                "0.0.0.0/8",
                "10.0.0.0/8",
                "100.64.0.0/10",
                "127.0.0.0/8",
                "169.254.0.0/16",
                "172.16.0.0/12",
                "192.0.0.0/24",
                "192.0.2.0/24",
                "192.88.99.0/24",
                "192.168.0.0/16",
                "198.18.0.0/15",
                "198.51.100.0/24",
                "203.0.113.0/24",
                "224.0.0.0/4",
                "240.0.0.0/4");

        /** Inside 2000::/3. */
        private static final List<BigInteger[]> V6_UNICAST = blocks("2001::/23", "2001:db8::/32", "3fff::/20");

        private static final BigInteger LOW32 = BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE);
        private static final BigInteger MAPPED = BigInteger.valueOf(0xFFFF).shiftLeft(32);
        private static final BigInteger TRANSLATED = BigInteger.valueOf(0xFFFF).shiftLeft(48);
        private static final BigInteger NAT64 = new BigInteger("0064ff9b", 16).shiftLeft(96);

        private Registry() {}

        static boolean refuses(byte[] address) {
            BigInteger n = new BigInteger(1, address);
            if (address.length == 4) {
                return in(n, 32, V4);
            }
            BigInteger high96 = n.shiftRight(32).shiftLeft(32);
            if (high96.equals(MAPPED) || high96.equals(TRANSLATED) || high96.signum() == 0 || high96.equals(NAT64)) {
                return in(n.and(LOW32), 32, V4);
            }
            if (n.shiftRight(112).intValue() == 0x2002) {
                return in(n.shiftRight(80).and(LOW32), 32, V4);
            }
            if (n.shiftRight(125).intValue() != 1) {
                return true; // outside 2000::/3
            }
            return in(n, 128, V6_UNICAST);
        }

        private static boolean in(BigInteger n, int width, List<BigInteger[]> blocks) {
            for (BigInteger[] block : blocks) {
                int shift = width - block[1].intValue();
                if (n.shiftRight(shift).equals(block[0].shiftRight(shift))) {
                    return true;
                }
            }
            return false;
        }

        private static List<BigInteger[]> blocks(String... cidrs) {
            List<BigInteger[]> out = new ArrayList<>();
            for (String cidr : cidrs) {
                String[] parts = cidr.split("/");
                try {
                    InetAddress base = InetAddress.getByName(parts[0]);
                    if (cidr.contains(":") && base instanceof Inet4Address) {
                        throw new IllegalArgumentException("a mapped prefix is not a block here: " + cidr);
                    }
                    out.add(new BigInteger[] {
                        new BigInteger(1, base.getAddress()), BigInteger.valueOf(Integer.parseInt(parts[1]))
                    });
                } catch (UnknownHostException e) {
                    throw new IllegalArgumentException(cidr, e);
                }
            }
            return out;
        }
    }
}
