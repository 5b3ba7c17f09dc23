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
 * as 1 with the scope id {@code (kind >>> 2) & 15}. Kind {@code & 0x40}: a byte before the address picks a
 * block whose prefix overwrites the address's first bits ({@code & 0x80}: with its last bit flipped, just
 * outside); kind {@code & 0x20} (IPv6): a byte picks an IPv4 block written where a form carries IPv4.
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
            int prefix = (kind & 0x40) == 0 ? -1 : i < input.length ? input[i++] & 0xFF : 0;
            int embedded = (kind & 0x20) == 0 || length == 4 ? -1 : i < input.length ? input[i++] & 0xFF : 0;
            byte[] bytes = Arrays.copyOfRange(input, i, i + length);
            i += length;
            if (prefix >= 0) {
                List<BigInteger[]> templates = length == 4 ? Registry.V4_TEMPLATES : Registry.V6_TEMPLATES;
                bytes = overlay(bytes, 0, templates.get(prefix % templates.size()), (kind & 0x80) != 0, false);
            }
            if (embedded >= 0) {
                // An IPv4 block where a form carries one: the last 32 bits, bits 16-47 (6to4), or inverted (Teredo).
                int where = ((embedded >>> 5) & 3) % 3;
                BigInteger[] block = Registry.V4_TEMPLATES.get((embedded & 0x1F) % Registry.V4_TEMPLATES.size());
                bytes = overlay(bytes, where == 1 ? 2 : 12, block, (embedded & 0x80) != 0, where == 2);
            }
            answers.add(
                    switch (shape) {
                        case 0, 2 -> InetAddress.getByAddress(HOST, bytes);
                        case 1 -> Inet6Address.getByAddress(HOST, bytes, -1);
                        default -> Inet6Address.getByAddress(HOST, bytes, (kind >>> 2) & 0xF);
                    });
        }
        return answers;
    }

    /**
     * Steers fuzzed bytes into a registry block (or, with {@code outside}, just past its boundary: the last
     * prefix bit flipped), so that every block's edges are reached and not only what coverage tells apart.
     *
     * @param block {value, prefix length} of a 32- or 128-bit block
     * @param inverted whether the block's bits are written inverted (Teredo's client address)
     */
    private static byte[] overlay(byte[] bytes, int offset, BigInteger[] block, boolean outside, boolean inverted) {
        int bits = block[1].intValue();
        int width = block[2].intValue();
        byte[] part = Arrays.copyOfRange(bytes, offset, offset + width / 8);
        BigInteger n = new BigInteger(1, part);
        BigInteger all = BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
        BigInteger mask = all.shiftRight(width - bits).shiftLeft(width - bits);
        BigInteger value = block[0];
        if (outside && bits > 0) {
            value = value.flipBit(width - bits);
        }
        if (inverted) {
            value = value.xor(all);
        }
        n = n.andNot(mask).or(value.and(mask));
        byte[] out = bytes.clone();
        byte[] raw = n.toByteArray();
        for (int k = 0; k < width / 8; k++) {
            int from = raw.length - width / 8 + k;
            out[offset + k] = from >= 0 ? raw[from] : 0;
        }
        return out;
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

        /** Where the fuzzer is steered: the reference's IPv4 blocks. */
        static final List<BigInteger[]> V4_TEMPLATES = V4;

        /** Where the fuzzer is steered: every IPv6 block either side treats specially. */
        static final List<BigInteger[]> V6_TEMPLATES = templatesV6();

        private static final BigInteger LOW32 = BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE);
        private static final BigInteger MAPPED = BigInteger.valueOf(0xFFFF).shiftLeft(32);
        private static final BigInteger TRANSLATED = BigInteger.valueOf(0xFFFF).shiftLeft(48);
        private static final BigInteger NAT64 = new BigInteger("0064ff9b", 16).shiftLeft(96);

        private Registry() {}

        private static List<BigInteger[]> templatesV6() {
            List<BigInteger[]> out = new ArrayList<>(blocks(
                    "::/128",
                    "::1/128",
                    "::/96",
                    "::ffff:0:0:0/96",
                    "64:ff9b::/96",
                    "64:ff9b:1::/48",
                    "100::/64",
                    "100:0:0:1::/64",
                    "2000::/3",
                    "2001::/32",
                    "2001:2::/48",
                    "2001:10::/28",
                    "2001:20::/28",
                    "2001:30::/28",
                    "2002::/16",
                    "2620:4f:8000::/48",
                    "3fff::/20",
                    "5f00::/16",
                    "fc00::/7",
                    "fe80::/10",
                    "fec0::/10",
                    "ff00::/8"));
            out.addAll(V6_UNICAST);
            // ::ffff:0:0/96 is an IPv4 literal to the JDK: written as a number.
            out.add(new BigInteger[] {
                BigInteger.valueOf(0xFFFF).shiftLeft(32), BigInteger.valueOf(96), BigInteger.valueOf(128)
            });
            return List.copyOf(out);
        }

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
                        new BigInteger(1, base.getAddress()),
                        BigInteger.valueOf(Integer.parseInt(parts[1])),
                        BigInteger.valueOf(base.getAddress().length * 8L)
                    });
                } catch (UnknownHostException e) {
                    throw new IllegalArgumentException(cidr, e);
                }
            }
            return out;
        }
    }
}
