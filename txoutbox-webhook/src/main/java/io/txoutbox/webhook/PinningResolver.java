package io.txoutbox.webhook;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * The only way the webhook client learns where to connect: it resolves the host once, checks every
 * address against {@link AddressPolicy} (unless private networks are allowed), and hands over exactly
 * the addresses it checked. The address checked is therefore the address connected: a DNS answer that
 * changes between a check and a connect (rebinding) cannot slip in, because there is no second lookup.
 */
final class PinningResolver implements SocketAddressResolver {
    /** The target was refused by the address policy; the message says which address and why. */
    static final class RefusedAddressException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedAddressException(String why) {
            super(why);
        }
    }

    private final AddressPolicy.Resolver resolver;
    private final boolean allowPrivateNetworks;
    private final Executor executor;

    PinningResolver(AddressPolicy.Resolver resolver, boolean allowPrivateNetworks, Executor executor) {
        this.resolver = resolver;
        this.allowPrivateNetworks = allowPrivateNetworks;
        this.executor = executor;
    }

    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        try {
            // Name resolution blocks: never on the client's selector thread.
            executor.execute(() -> resolveNow(host, port, promise));
        } catch (RejectedExecutionException e) {
            promise.failed(e);
        }
    }

    private void resolveNow(String host, int port, Promise<List<InetSocketAddress>> promise) {
        List<InetSocketAddress> pinned;
        try {
            pinned = pinned(host, port);
        } catch (IOException | RuntimeException e) {
            promise.failed(e);
            return;
        }
        promise.succeeded(pinned);
    }

    /**
     * Resolves the host once and checks every address, on the calling thread.
     *
     * @param host a host name or IP literal, IPv6 with or without brackets
     * @param port the port to connect to
     * @return exactly the addresses that were checked, in the resolver's order
     * @throws RefusedAddressException when the policy refuses one of them
     * @throws UnknownHostException when the name does not resolve
     */
    List<InetSocketAddress> pinned(String host, int port) throws IOException {
        String name = WebhookPublisher.bare(host);
        InetAddress[] addresses = resolver.resolve(name);
        if (!allowPrivateNetworks) {
            String why = AddressPolicy.check(name, addresses);
            if (why != null) {
                throw new RefusedAddressException(why);
            }
        } else if (addresses == null || addresses.length == 0) {
            throw new UnknownHostException("'" + name + "' resolves to no address");
        }
        List<InetSocketAddress> out = new ArrayList<>(addresses.length);
        for (InetAddress a : addresses) {
            out.add(new InetSocketAddress(a, port));
        }
        return out;
    }
}
