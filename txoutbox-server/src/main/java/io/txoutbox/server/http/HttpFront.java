package io.txoutbox.server.http;

import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.server.yaml.ConfigException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin server's connections, bounded so that slow or many clients cannot freeze it.
 *
 * <ul>
 *   <li>Requests are parsed without holding a thread (Jetty's selector), so clients that trickle their
 *       headers cost a socket each, never a worker.
 *   <li>A request must arrive whole (headers and body) within {@code request-timeout} of the connection's
 *       opening or of its first byte: a sweeper closes connections that take longer, however steadily
 *       they trickle.
 *   <li>At most {@code max-incomplete-requests-per-client} requests of one address, and {@code
 *       max-incomplete-requests} in all, may be arriving at once: one more closes the longest-waiting one
 *       ({@link IncompleteRequests}), so trickling clients never take the place of a health check.
 *   <li>An idle keep-alive connection is closed after {@code idle-timeout}.
 *   <li>At most {@code max-connections} are open at once; beyond it new ones wait in the accept queue, and
 *       the idle ones are closed sooner.
 *   <li>Request headers are limited to 8 KiB (431 beyond); bodies are read up to the route's limit.
 * </ul>
 */
final class HttpFront implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpFront.class);
    private static final long SWEEP_MILLIS = 200;

    private final Server jetty;
    private final AbstractConnector connector;
    private final ScheduledExecutorService sweeper;
    private final IncompleteRequests incomplete;

    private HttpFront(Server jetty, AbstractConnector connector, IncompleteRequests incomplete) {
        this.jetty = jetty;
        this.connector = connector;
        this.incomplete = incomplete;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "txoutbox-admin-deadline");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Binds and starts serving.
     *
     * @param config host, port and limits
     * @param handler handles each request on a worker thread (blocking is fine)
     * @return the running front
     * @throws IOException when the address cannot be bound (the operating system's error as cause)
     */
    static HttpFront start(ServerConfig.Admin config, Consumer<Exchange> handler) throws IOException {
        ServerConfig.Limits limits = config.limits();
        Server jetty = server();
        HttpConfiguration http = http(limits);
        ServerConnector connector = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
        connector.setHost(config.host());
        connector.setPort(config.port());
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        connector.setAcceptQueueSize(128);
        jetty.addConnector(connector);
        NetworkConnectionLimit cap = new NetworkConnectionLimit(limits.maxConnections(), connector);
        // At the cap, idle connections make room sooner.
        cap.setEndPointIdleTimeout(Math.min(1000, limits.idleTimeout().toMillis()));
        jetty.addBean(cap);
        return started(jetty, connector, limits, handler);
    }

    /**
     * Names what really failed: a port in use is {@code admin.port}; an address that is not one of this
     * machine's (or that does not resolve) is {@code admin.host}; the operating system's own words follow.
     */
    static ConfigException bindError(ServerConfig.Admin config, IOException e) {
        String where = config.host() + ":" + config.port();
        InetAddress address;
        try {
            address = InetAddress.getByName(config.host());
        } catch (UnknownHostException unknown) {
            return new ConfigException(
                    "admin.host", "cannot listen on " + where + ": the host name does not resolve", e);
        }
        boolean local;
        try {
            local = address.isAnyLocalAddress()
                    || address.isLoopbackAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException unknown) {
            local = true;
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String reason = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (!local) {
            return new ConfigException(
                    "admin.host",
                    "cannot listen on " + where + ": " + reason + " (" + address.getHostAddress()
                            + " is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses)",
                    e);
        }
        if (root instanceof BindException) {
            return new ConfigException(
                    "admin.port",
                    "cannot listen on " + where + ": " + reason + " (is the port already in use? stop the program"
                            + " using it, or choose another port with --port or admin.port)",
                    e);
        }
        return new ConfigException("admin.host", "cannot listen on " + where + ": " + reason, e);
    }

    /**
     * The same server on an in-process connector and no socket, for the fuzz target of request parsing:
     * {@link #exchange} feeds it raw request bytes.
     *
     * @param config the limits (host and port are not used)
     * @param handler handles each request on a worker thread
     * @return the running front
     * @throws IOException when Jetty cannot start
     */
    static HttpFront local(ServerConfig.Admin config, Consumer<Exchange> handler) throws IOException {
        Server jetty = server();
        LocalConnector connector = new LocalConnector(jetty, new HttpConnectionFactory(http(config.limits())));
        connector.setIdleTimeout(config.limits().idleTimeout().toMillis());
        jetty.addConnector(connector);
        return started(jetty, connector, config.limits(), handler);
    }

    /**
     * Sends raw bytes on a new in-process connection of a {@link #local} front, then the end of the
     * input, and waits until the server closes the connection or goes idle.
     *
     * @return every byte the server answered, as ISO-8859-1 text (one or more responses, or none)
     */
    String exchange(byte[] request, Duration wait) throws Exception {
        LocalConnector.LocalEndPoint endPoint = ((LocalConnector) connector).connect();
        endPoint.addInput(ByteBuffer.wrap(request));
        endPoint.addInputEOF();
        endPoint.waitUntilClosedOrIdleFor(wait.toMillis(), TimeUnit.MILLISECONDS);
        return endPoint.takeOutputString(StandardCharsets.ISO_8859_1);
    }

    private static Server server() {
        QueuedThreadPool threads = new QueuedThreadPool(16, 2);
        threads.setName("txoutbox-admin");
        threads.setDaemon(true);
        return new Server(threads);
    }

    private static HttpConfiguration http(ServerConfig.Limits limits) {
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(8 * 1024);
        http.setIdleTimeout(limits.idleTimeout().toMillis());
        return http;
    }

    private static HttpFront started(
            Server jetty, AbstractConnector connector, ServerConfig.Limits limits, Consumer<Exchange> handler)
            throws IOException {
        IncompleteRequests incomplete = new IncompleteRequests(limits, System::nanoTime);
        connector.addBean(incomplete);
        jetty.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Connection connection = request.getConnectionMetaData().getConnection();
                incomplete.arrived(connection);
                // Once the response is sent, the next byte on the connection starts the next request.
                Exchange ex =
                        new Exchange(request, response, Callback.from(() -> incomplete.arrived(connection), callback));
                try {
                    handler.accept(ex);
                } catch (RuntimeException e) {
                    if (!ex.sent()) {
                        ex.fail(e);
                    }
                    return true;
                }
                if (!ex.sent()) {
                    ex.fail(new IllegalStateException("no response"));
                }
                return true;
            }
        });
        jetty.setStopTimeout(1000);
        HttpFront front = new HttpFront(jetty, connector, incomplete);
        try {
            jetty.start();
        } catch (IOException e) {
            front.close();
            throw e;
        } catch (Exception e) {
            front.close();
            throw new IOException(e.getMessage(), e);
        }
        front.sweeper.scheduleWithFixedDelay(front::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        return front;
    }

    /** @return the connections open now */
    int connections() {
        return connector.getConnectedEndPoints().size();
    }

    /** @return the port it listens on (-1 for a {@link #local} front) */
    int port() {
        return connector instanceof ServerConnector network ? network.getLocalPort() : -1;
    }

    private void sweep() {
        try {
            incomplete.sweep();
        } catch (RuntimeException e) {
            log.warn("txoutbox-server: the request-deadline sweep failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        try {
            jetty.stop();
        } catch (Exception e) {
            log.warn("txoutbox-server: stopping the HTTP server failed: {}", e.toString());
        }
    }
}
