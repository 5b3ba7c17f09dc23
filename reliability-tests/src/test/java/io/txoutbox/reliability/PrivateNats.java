package io.txoutbox.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A NATS server with JetStream that this test owns: its own process, a free loopback port and a store
 * directory of its own, so the test can stop and start it (a real broker outage) without touching the
 * shared server on 4222. A restart keeps the port and the store: the stream and every message it
 * acknowledged come back.
 */
final class PrivateNats implements AutoCloseable {
    static final String BINARY = System.getenv().getOrDefault("TXOUTBOX_NATS_SERVER", "/usr/sbin/nats-server");

    private final int port;
    private final Path storeDir;
    private final Path log;
    private Process process;
    private final Thread reaper = new Thread(this::stop, "private-nats-reaper");

    PrivateNats() throws IOException {
        this.port = freePort();
        this.storeDir = Files.createTempDirectory("txoutbox-chaos-nats");
        this.log = storeDir.resolve("nats-server.log");
        // A test JVM that exits without closing this must not leave the server running.
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** @return whether the server binary is installed */
    static boolean available() {
        return Files.isExecutable(Path.of(BINARY));
    }

    /** @return the client URL, straight to the server (the test's own view, never proxied) */
    String url() {
        return "nats://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** Starts the server and waits until it accepts connections. */
    synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            process = new ProcessBuilder(
                            BINARY, "-a", "127.0.0.1", "-p", Integer.toString(port), "-js", "-sd", storeDir.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + BINARY, e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("nats-server exited with " + process.exitValue() + "; see " + log);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                sleep(50);
            }
        }
        throw new IllegalStateException("nats-server did not listen on " + port + " within 20 s; see " + log);
    }

    /** Stops the server (SIGTERM: it flushes its store and exits) and waits for it. */
    synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is exiting: the hook runs anyway.
        }
        try (Stream<Path> files = Files.walk(storeDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temp directory left behind is not worth failing a test for.
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
