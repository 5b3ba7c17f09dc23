package io.txoutbox.webhook;

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
    static final class RefusedAddressException extends java.io.IOException {
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
        String name = WebhookPublisher.bare(host);
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(name);
        } catch (UnknownHostException e) {
            promise.failed(e);
            return;
        } catch (RuntimeException e) {
            promise.failed(e);
            return;
        }
        if (!allowPrivateNetworks) {
            String why = AddressPolicy.check(name, addresses);
            if (why != null) {
                promise.failed(new RefusedAddressException(why));
                return;
            }
        }
        List<InetSocketAddress> out = new ArrayList<>(addresses.length);
        for (InetAddress a : addresses) {
            out.add(new InetSocketAddress(a, port));
        }
        promise.succeeded(out);
    }
}
