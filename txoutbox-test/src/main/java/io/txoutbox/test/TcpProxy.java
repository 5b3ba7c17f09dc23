package io.txoutbox.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback for fault injection: put it between a client and a real broker, then cut,
 * blackhole or delay the connection from the test, and restore it.
 *
 * <ul>
 *   <li>{@link #cut()}: closes every connection and refuses new ones (a crashed or unreachable broker);
 *   <li>{@link #blackhole()}: keeps connections open but forwards nothing (a network partition: the
 *       client only notices by its own timeouts);
 *   <li>{@link #delay(Duration)}: forwards every chunk late (a slow network);
 *   <li>{@link #restore()}: forwards again.
 * </ul>
 *
 * <p>Bind only to loopback; the target must be a local service.
 */
public final class TcpProxy implements AutoCloseable {
    private enum Mode {
        OPEN,
        CUT,
        BLACKHOLE
    }

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile Mode mode = Mode.OPEN;
    private volatile long delayMillis;
    private volatile boolean closed;

    /**
     * Starts a proxy on a free loopback port.
     *
     * @param targetHost the real service's host (a loopback address)
     * @param targetPort the real service's port
     * @throws IOException when no port can be bound
     */
    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this(0, targetHost, targetPort);
    }

    /**
     * Starts a proxy on a given loopback port, for a broker that must advertise the proxy's address
     * before the proxy exists (Kafka tells clients where to connect next).
     *
     * @param port the loopback port to listen on, or 0 for a free one
     * @param targetHost the real service's host (a loopback address)
     * @param targetPort the real service's port
     * @throws IOException when the port cannot be bound
     */
    public TcpProxy(int port, String targetHost, int targetPort) throws IOException {
        this.target = new InetSocketAddress(targetHost, targetPort);
        this.server = new ServerSocket();
        // The same port serves test after test: do not wait for the previous proxy's closed sockets.
        server.setReuseAddress(true);
        bind(server, port);
        this.acceptor = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void bind(ServerSocket server, int port) throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            try {
                server.bind(address, 50);
                return;
            } catch (java.net.BindException inUse) {
                // A fixed port may still be held for a moment by the previous proxy's listener.
                if (port == 0 || System.nanoTime() > deadline) {
                    server.close();
                    throw inUse;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    server.close();
                    throw inUse;
                }
            }
        }
    }

    /** @return the host clients should connect to */
    public String host() {
        return server.getInetAddress().getHostAddress();
    }

    /** @return the port clients should connect to */
    public int port() {
        return server.getLocalPort();
    }

    /** Closes every open connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        mode = Mode.CUT;
        closeAll();
    }

    /** Keeps connections open but forwards nothing, in either direction, until {@link #restore()}. */
    public void blackhole() {
        mode = Mode.BLACKHOLE;
    }

    /**
     * @param delay how late to forward every chunk of bytes, until {@link #restore()}
     */
    public void delay(Duration delay) {
        delayMillis = delay.toMillis();
    }

    /** Forwards again, at once. Connections cut or blackholed stay as they are; new ones work. */
    public void restore() {
        delayMillis = 0;
        if (mode == Mode.BLACKHOLE) {
            // Bytes swallowed by the blackhole are gone: the old connections are corrupt, end them.
            closeAll();
        }
        mode = Mode.OPEN;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (mode == Mode.CUT) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(target, 5_000);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, "up");
                pump(upstream, client, "down");
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            long delay = delayMillis;
                            if (delay > 0) {
                                Thread.sleep(delay);
                            }
                            if (mode == Mode.OPEN) {
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                        }
                    } catch (IOException | InterruptedException e) {
                        // The connection ended (or was cut): close both sides below.
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-" + port() + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private void closeAll() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // Closing a socket that is already broken: nothing to do.
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // Already closed.
        }
        try {
            // The port is free only once the acceptor has left accept(): a next proxy may want it.
            acceptor.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeAll();
    }

    @Override
    public String toString() {
        return "TcpProxy[" + host() + ":" + port() + " -> " + target + ", " + mode + "]";
    }
}
