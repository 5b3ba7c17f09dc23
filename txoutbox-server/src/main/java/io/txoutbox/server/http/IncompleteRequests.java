package io.txoutbox.server.http;

import io.txoutbox.server.config.ServerConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the admin server's connections whose request has not arrived whole, so that clients that send
 * slowly (or not at all) can neither keep a connection for long nor take the places that a health check
 * needs.
 *
 * <p>A connection's request is <em>incomplete</em> from the moment the connection opens, or the first
 * byte of its next request arrives, until Jetty hands the request to the handler; body bytes that come
 * after that count as incomplete again, until the response is sent. Three bounds apply:
 *
 * <ul>
 *   <li>an incomplete request older than the request timeout has its connection closed ({@link #sweep()});
 *   <li>at most {@code maxPerClient} incomplete requests of one remote address at once: when one more
 *       opens, that address's longest-waiting one is closed;
 *   <li>at most {@code maxTotal} incomplete requests at once: when one more opens, the longest-waiting one
 *       of any address is closed.
 * </ul>
 *
 * <p>The longest-waiting connection is closed, not the new one: a health check sends its whole request
 * at once and is handled within milliseconds, so it always gets its turn, while a client that trickles
 * only pushes out its own connections (or, past the total, the slowest ones). The total stays below the
 * connection cap, so incomplete requests never stop the server from accepting.
 */
final class IncompleteRequests implements Connection.Listener {
    private static final Logger log = LoggerFactory.getLogger(IncompleteRequests.class);

    /** One connection: who it is from, and since when its current request has been arriving. */
    private static final class Track {
        final Connection connection;
        final InetAddress client;
        /** {@link System#nanoTime()} when the current request started arriving; -1 while none is. */
        long since;

        long messagesIn;
        long bytesIn;

        Track(Connection connection, InetAddress client, long since) {
            this.connection = connection;
            this.client = client;
            this.since = since;
        }
    }

    private final long timeoutNanos;
    private final int maxPerClient;
    private final int maxTotal;
    private final LongSupplier nanoTime;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<EndPoint, Track> tracks = new HashMap<>();

    /**
     * @param limits the request timeout and the bounds on incomplete requests
     * @param nanoTime the monotonic clock ({@link System#nanoTime()})
     */
    IncompleteRequests(ServerConfig.Limits limits, LongSupplier nanoTime) {
        this.timeoutNanos = limits.requestTimeout().toNanos();
        this.maxPerClient = limits.maxIncompleteRequestsPerClient();
        this.maxTotal = limits.maxIncompleteRequests();
        this.nanoTime = nanoTime;
    }

    @Override
    public void onOpened(Connection connection) {
        EndPoint endPoint = connection.getEndPoint();
        Track opened = new Track(connection, client(endPoint.getRemoteSocketAddress()), nanoTime.getAsLong());
        List<Track> close = new ArrayList<>(2);
        lock.lock();
        try {
            tracks.put(endPoint, opened);
            if (opened.client != null && count(t -> opened.client.equals(t.client)) > maxPerClient) {
                close.add(closing(oldest(t -> opened.client.equals(t.client))));
            }
            if (count(t -> true) > maxTotal) {
                close.add(closing(oldest(t -> true)));
            }
        } finally {
            lock.unlock();
        }
        for (Track t : close) {
            log.debug("txoutbox-server: closing {}: too many requests that have not arrived whole", t.connection);
            t.connection.getEndPoint().close();
        }
    }

    /** @return how many incomplete requests match; under the lock */
    private int count(Predicate<Track> which) {
        int n = 0;
        for (Track t : tracks.values()) {
            if (t.since >= 0 && which.test(t)) {
                n++;
            }
        }
        return n;
    }

    /** @return the incomplete request that matches and has been arriving longest; under the lock */
    private Track oldest(Predicate<Track> which) {
        Track oldest = null;
        for (Track t : tracks.values()) {
            if (t.since >= 0 && which.test(t) && (oldest == null || t.since < oldest.since)) {
                oldest = t;
            }
        }
        return oldest;
    }

    /** @return the track, no longer counted as incomplete (it is about to be closed); under the lock */
    private static Track closing(Track t) {
        t.since = -1;
        return t;
    }

    @Override
    public void onClosed(Connection connection) {
        lock.lock();
        try {
            tracks.remove(connection.getEndPoint());
        } finally {
            lock.unlock();
        }
    }

    /**
     * The connection's request is in (its handler starts), or its response is sent: no request is
     * arriving on it now; the next byte it receives starts the next one.
     */
    void arrived(Connection connection) {
        lock.lock();
        try {
            Track t = tracks.get(connection.getEndPoint());
            if (t != null) {
                t.since = -1;
                t.messagesIn = connection.getMessagesIn();
                t.bytesIn = connection.getBytesIn();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Notes which connections started receiving a request since the last sweep, and closes those whose
     * request has been arriving for longer than the request timeout, however steadily it trickles.
     */
    void sweep() {
        long now = nanoTime.getAsLong();
        List<Track> close = new ArrayList<>();
        lock.lock();
        try {
            for (Track t : tracks.values()) {
                long in = t.connection.getMessagesIn();
                long bytes = t.connection.getBytesIn();
                if (in != t.messagesIn) {
                    // Jetty took a request in since: count from the bytes after it.
                    t.messagesIn = in;
                    t.bytesIn = bytes;
                    t.since = -1;
                } else if (t.since < 0) {
                    if (bytes > t.bytesIn) {
                        t.since = now;
                    }
                } else if (now - t.since > timeoutNanos) {
                    t.since = -1;
                    close.add(t);
                }
            }
        } finally {
            lock.unlock();
        }
        for (Track t : close) {
            log.debug("txoutbox-server: closing {}: the request took longer than the request timeout", t.connection);
            t.connection.getEndPoint().close();
        }
    }

    /** @return the connections whose request is arriving now */
    int incomplete() {
        lock.lock();
        try {
            return (int) tracks.values().stream().filter(t -> t.since >= 0).count();
        } finally {
            lock.unlock();
        }
    }

    private static InetAddress client(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
