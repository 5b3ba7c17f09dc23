package io.txoutbox.webhook;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Server-side request forgery protection: which addresses a webhook may not reach unless private
 * networks are explicitly allowed. A target is refused when <em>any</em> of its resolved addresses is
 * refused, so a name that resolves to a public and a private address cannot slip through.
 */
final class AddressPolicy {

    /** Resolves a host name to all of its addresses; a seam so tests can point names anywhere. */
    @FunctionalInterface
    interface Resolver {
        /** The JDK's resolver; the webhook client connects only to what it answered and was checked. */
        Resolver SYSTEM = InetAddress::getAllByName;

        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    private AddressPolicy() {}

    /**
     * @param address an address
     * @return why it is refused ("a loopback address"), or {@code null} when it is a public address
     */
    static String refusal(InetAddress address) {
        if (address.isAnyLocalAddress()) {
            return "the unspecified address";
        }
        if (address.isLoopbackAddress()) {
            return "a loopback address";
        }
        if (address.isLinkLocalAddress()) {
            return "a link-local address";
        }
        if (address.isMulticastAddress()) {
            return "a multicast address";
        }
        if (address.isSiteLocalAddress()) {
            return "a private address";
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return refusalV4(b);
        }
        if (address instanceof Inet6Address) {
            if ((b[0] & 0xFE) == 0xFC) {
                return "a unique-local address (fc00::/7)";
            }
            String special = refusalV6(b);
            if (special != null) {
                return special;
            }
            byte[] embedded = embeddedV4(b);
            if (embedded != null) {
                try {
                    InetAddress v4 = InetAddress.getByAddress(embedded);
                    String inner = refusal(v4);
                    return inner == null ? null : inner + " embedded in an IPv6 address";
                } catch (UnknownHostException e) {
                    // Four bytes are always a valid IPv4 address.
                    throw new IllegalStateException(e);
                }
            }
        }
        return null;
    }

    private static String refusalV4(byte[] b) {
        int first = b[0] & 0xFF;
        int second = b[1] & 0xFF;
        if (first == 0) {
            return "a 'this network' address (0.0.0.0/8)";
        }
        if (first == 100 && (second & 0xC0) == 64) {
            return "a shared (carrier-grade NAT) address (100.64.0.0/10)";
        }
        if (first == 198 && (second & 0xFE) == 18) {
            return "a benchmarking address (198.18.0.0/15)";
        }
        if (first >= 240) {
            return "a reserved or broadcast address (240.0.0.0/4)";
        }
        int third = b[2] & 0xFF;
        if (first == 192 && second == 0 && third == 0) {
            return "an IETF protocol assignments address (192.0.0.0/24)";
        }
        if (first == 192 && second == 0 && third == 2
                || first == 198 && second == 51 && third == 100
                || first == 203 && second == 0 && third == 113) {
            return "a documentation address (TEST-NET)";
        }
        if (first == 192 && second == 88 && third == 99) {
            return "a 6to4 relay anycast address (192.88.99.0/24)";
        }
        return null;
    }

    /**
     * IPv6 ranges refused as a whole: translation and tunnel prefixes whose embedded IPv4 address a gateway
     * of the operator's choosing may map anywhere (local-use NAT64, Teredo), and ranges that are never a
     * public destination (discard-only, documentation, ORCHID).
     */
    private static String refusalV6(byte[] b) {
        int w0 = (b[0] & 0xFF) << 8 | b[1] & 0xFF;
        int w1 = (b[2] & 0xFF) << 8 | b[3] & 0xFF;
        int w2 = (b[4] & 0xFF) << 8 | b[5] & 0xFF;
        if (w0 == 0x0064 && w1 == 0xFF9B && w2 == 0x0001) {
            return "a local-use NAT64 address (64:ff9b:1::/48)";
        }
        if (w0 == 0x2001 && w1 == 0x0000) {
            return "a Teredo address (2001::/32)";
        }
        if (w0 == 0x0100 && w1 == 0 && w2 == 0 && b[6] == 0 && b[7] == 0) {
            return "a discard-only address (100::/64)";
        }
        if (w0 == 0x2001 && w1 == 0x0DB8) {
            return "a documentation address (2001:db8::/32)";
        }
        if (w0 == 0x2001 && (w1 & 0xFFF0) == 0x0010 || w0 == 0x2001 && (w1 & 0xFFF0) == 0x0020) {
            return "an ORCHID address (2001:10::/28, 2001:20::/28)";
        }
        return null;
    }

    /**
     * IPv4-compatible ({@code ::a.b.c.d}), IPv4-translated ({@code ::ffff:0:a.b.c.d}), NAT64 ({@code
     * 64:ff9b::a.b.c.d}) and 6to4 ({@code 2002:aabb:ccdd::}) addresses carry an IPv4 address that a gateway
     * may forward to. (IPv4-mapped {@code ::ffff:a.b.c.d} is an IPv4 address to the JDK already.)
     *
     * @return the embedded IPv4 address's bytes, or {@code null}
     */
    private static byte[] embeddedV4(byte[] b) {
        if ((b[0] & 0xFF) == 0x20 && (b[1] & 0xFF) == 0x02) {
            return new byte[] {b[2], b[3], b[4], b[5]};
        }
        boolean zeroPrefix = true;
        for (int i = 0; i < 12; i++) {
            zeroPrefix &= b[i] == 0;
        }
        boolean translated = true;
        for (int i = 0; i < 8; i++) {
            translated &= b[i] == 0;
        }
        translated &= (b[8] & 0xFF) == 0xFF && (b[9] & 0xFF) == 0xFF && b[10] == 0 && b[11] == 0;
        if (translated) {
            return new byte[] {b[12], b[13], b[14], b[15]};
        }
        boolean nat64 = b[0] == 0 && (b[1] & 0xFF) == 0x64 && (b[2] & 0xFF) == 0xFF && (b[3] & 0xFF) == 0x9B;
        for (int i = 4; i < 12 && nat64; i++) {
            nat64 = b[i] == 0;
        }
        return zeroPrefix || nat64 ? new byte[] {b[12], b[13], b[14], b[15]} : null;
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
        if (addresses.length == 0) {
            return "'" + host + "' resolves to no address";
        }
        for (InetAddress address : addresses) {
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
