package io.txoutbox.webhook;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Server-side request forgery protection: which addresses a webhook may not reach unless private
 * networks are explicitly allowed. A target is refused when <em>any</em> of its resolved addresses is
 * refused, so a name that resolves to a public and a private address cannot slip through.
 *
 * <p>The verdict depends on the address's bytes only, never on which {@link InetAddress} subclass the JDK
 * handed over nor on its {@code is...Address()} methods: the JDK turns an IPv4-mapped <em>literal</em> into
 * an {@code Inet4Address}, but a resolver may hand over an {@code Inet6Address} holding the same mapped
 * bytes, whose {@code isLoopbackAddress()} is false although a connection to it reaches loopback. The
 * blocks are those of the IANA IPv4 and IPv6 special-purpose address registries that are not globally
 * reachable, plus multicast, the deprecated site-local block and the IPv6 space outside global unicast;
 * a special-purpose block is refused whole even where IANA marks a single anycast service in it global
 * (192.0.0.9, 2001:1::1), since none of them is a webhook receiver. Every IPv6 form that carries an IPv4
 * address a gateway forwards to is judged by that IPv4 address.
 */
final class AddressPolicy {

    /** Resolves a host name to all of its addresses; a seam so tests can point names anywhere. */
    @FunctionalInterface
    interface Resolver {
        /** The JDK's resolver; the webhook client connects only to what it answered and was checked. */
        Resolver SYSTEM = InetAddress::getAllByName;

        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** A block of addresses: its leading bytes, its prefix length and how a refusal names it. */
    private record Block(byte[] prefix, int bits, String name) {
        static Block of(String cidr, String what) {
            int slash = cidr.indexOf('/');
            byte[] prefix;
            try {
                // Literals only: no name is looked up.
                prefix = InetAddress.getByName(cidr.substring(0, slash)).getAddress();
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(cidr, e);
            }
            int bits = Integer.parseInt(cidr.substring(slash + 1));
            if (bits > prefix.length * 8 || cidr.indexOf(':') >= 0 && prefix.length != 16) {
                throw new IllegalArgumentException(cidr);
            }
            return new Block(prefix, bits, what + " (" + cidr + ")");
        }

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = 0xFF << (8 - rest) & 0xFF;
            return (address[whole] & mask) == (prefix[whole] & mask);
        }
    }

    /** IPv4 blocks refused, most specific first. */
    private static final List<Block> V4 = List.of(
            Block.of("0.0.0.0/32", "the unspecified address"),
            Block.of("0.0.0.0/8", "a 'this network' address"),
            Block.of("10.0.0.0/8", "a private address"),
            Block.of("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
            Block.of("127.0.0.0/8", "a loopback address"),
            Block.of("169.254.0.0/16", "a link-local address"),
            Block.of("172.16.0.0/12", "a private address"),
            Block.of("192.0.0.0/24", "an IETF protocol assignments address"),
            Block.of("192.0.2.0/24", "a documentation address"),
            Block.of("192.88.99.0/24", "a 6to4 relay anycast address"),
            Block.of("192.168.0.0/16", "a private address"),
            Block.of("198.18.0.0/15", "a benchmarking address"),
            Block.of("198.51.100.0/24", "a documentation address"),
            Block.of("203.0.113.0/24", "a documentation address"),
            Block.of("224.0.0.0/4", "a multicast address"),
            Block.of("255.255.255.255/32", "the limited broadcast address"),
            Block.of("240.0.0.0/4", "a reserved address"));

    private static final Block TEREDO = Block.of("2001::/32", "a Teredo address");

    /** IPv6 blocks refused whole, most specific first; they are checked before any embedded address. */
    private static final List<Block> V6 = List.of(
            Block.of("::/128", "the unspecified address"),
            Block.of("::1/128", "a loopback address"),
            Block.of("64:ff9b:1::/48", "a local-use NAT64 address"),
            Block.of("100::/64", "a discard-only address"),
            Block.of("100:0:0:1::/64", "a dummy address"),
            TEREDO,
            Block.of("2001:2::/48", "a benchmarking address"),
            Block.of("2001:10::/28", "an ORCHID address"),
            Block.of("2001:20::/28", "an ORCHIDv2 address"),
            Block.of("2001:30::/28", "a drone remote ID (DET) address"),
            Block.of("2001::/23", "an IETF protocol assignments address"),
            Block.of("2001:db8::/32", "a documentation address"),
            Block.of("3fff::/20", "a documentation address"),
            Block.of("5f00::/16", "an SRv6 SID address"),
            Block.of("fc00::/7", "a unique-local address"),
            Block.of("fe80::/10", "a link-local address"),
            Block.of("fec0::/10", "a deprecated site-local address"),
            Block.of("ff00::/8", "a multicast address"));

    /**
     * IPv6 forms whose last 32 bits are an IPv4 address that the host's dual stack or a gateway forwards to.
     */
    private static final List<Block> EMBEDDING = List.of(
            // Any spelling of ::ffff:0:0 is an IPv4 literal to the JDK, hence the bytes.
            new Block(
                    new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF, 0, 0, 0, 0},
                    96,
                    "an IPv4-mapped address (::ffff:0:0/96)"),
            Block.of("::ffff:0:0:0/96", "an IPv4-translated address"),
            Block.of("::/96", "a deprecated IPv4-compatible address"),
            Block.of("64:ff9b::/96", "a NAT64 address"));

    private static final Block SIX_TO_FOUR = Block.of("2002::/16", "a 6to4 address");
    private static final Block GLOBAL_UNICAST = Block.of("2000::/3", "global unicast");

    private AddressPolicy() {}

    /**
     * @param address an address
     * @return why it is refused ("a loopback address (127.0.0.0/8)"), or {@code null} when it is public
     */
    static String refusal(InetAddress address) {
        return refusal(address.getAddress());
    }

    /**
     * @param address the 4 bytes of an IPv4 address or the 16 of an IPv6 address
     * @return why it is refused, or {@code null} when it is public
     */
    static String refusal(byte[] address) {
        if (address.length == 4) {
            return refusalV4(address);
        }
        if (address.length != 16) {
            return "not an IP address (" + address.length + " bytes)";
        }
        for (Block block : V6) {
            if (block.contains(address)) {
                return block == TEREDO ? teredo(address) : block.name();
            }
        }
        for (Block form : EMBEDDING) {
            if (form.contains(address)) {
                return embedded(form, address, 12);
            }
        }
        if (SIX_TO_FOUR.contains(address)) {
            return embedded(SIX_TO_FOUR, address, 2);
        }
        if (!GLOBAL_UNICAST.contains(address)) {
            return "a reserved address outside IPv6 global unicast (2000::/3)";
        }
        return null;
    }

    private static String refusalV4(byte[] address) {
        for (Block block : V4) {
            if (block.contains(address)) {
                return block.name();
            }
        }
        return null;
    }

    /** @return the refusal of the IPv4 address at {@code offset}, naming the form that carries it */
    private static String embedded(Block form, byte[] address, int offset) {
        byte[] v4 = {address[offset], address[offset + 1], address[offset + 2], address[offset + 3]};
        String inner = refusalV4(v4);
        return inner == null ? null : form.name() + " carrying " + dotted(v4) + ", " + inner;
    }

    /**
     * A Teredo address carries the Teredo server's IPv4 address in bits 32-63 and the client's, inverted, in
     * its last 32 bits; a relay forwards to the client's. Teredo lies in the IETF protocol block and is
     * refused whatever it carries; a private address it carries is named.
     */
    private static String teredo(byte[] address) {
        byte[] server = {address[4], address[5], address[6], address[7]};
        byte[] client = new byte[4];
        for (int i = 0; i < 4; i++) {
            client[i] = (byte) ~address[12 + i];
        }
        String why = refusalV4(client);
        if (why != null) {
            return TEREDO.name() + " carrying client " + dotted(client) + ", " + why;
        }
        why = refusalV4(server);
        if (why != null) {
            return TEREDO.name() + " carrying server " + dotted(server) + ", " + why;
        }
        return TEREDO.name();
    }

    private static String dotted(byte[] v4) {
        return (v4[0] & 0xFF) + "." + (v4[1] & 0xFF) + "." + (v4[2] & 0xFF) + "." + (v4[3] & 0xFF);
    }

    /**
     * @param host a host name or an IP literal (IPv6 without brackets)
     * @return whether it is an IP literal (no name resolution needed)
     */
    static boolean isLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    /**
     * Resolves the host (a literal needs no lookup) and checks every address.
     *
     * @return why the host is refused, naming the address, or {@code null} when every address is public
     * @throws UnknownHostException when the name does not resolve
     */
    static String check(String host, Resolver resolver) throws UnknownHostException {
        return check(host, resolver.resolve(host));
    }

    /**
     * @param host the host name or literal the addresses belong to
     * @param addresses its addresses
     * @return why the host is refused, naming the address, or {@code null} when every address is public
     */
    static String check(String host, InetAddress[] addresses) {
        if (addresses == null || addresses.length == 0) {
            return "'" + host + "' resolves to no address";
        }
        for (InetAddress address : addresses) {
            if (address == null) {
                return "'" + host + "' resolves to a null address";
            }
            String why = refusal(address);
            if (why != null) {
                String shown = isLiteral(host) ? "" : " resolves to " + address.getHostAddress();
                return "'" + host + "'" + shown + ", " + why
                        + "; private networks are refused (WebhookPublisher.Builder.allowPrivateNetworks)";
            }
        }
        return null;
    }
}
