package io.txoutbox.demo;

import io.txoutbox.Outbox;
import io.txoutbox.server.TxoutboxServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code txoutbox demo}: an embedded PostgreSQL, the demo order service, a signature-verifying webhook
 * receiver and the relay server with its dashboard, all on this machine. The relay configuration is the
 * bundled {@code demo.yaml}, read like any other configuration file.
 *
 * <p>The admin token is random per run and printed only in the dashboard URL's fragment ({@code
 * #token=...}): a browser never sends a fragment to the server, so the token stays out of request
 * lines, server logs and {@code Referer} headers; the page moves it into its tab's session storage.
 */
final class DemoRunner implements AutoCloseable {
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final PrintWriter out;
    private final PrintWriter banner;
    private EmbeddedPostgres postgres;
    private DemoReceiver receiver;
    private TxoutboxServer server;
    private DemoProducer producer;
    private String token;
    private ScheduledExecutorService reporter;

    private DemoRunner(PrintWriter out, PrintWriter banner) {
        this.out = out;
        this.banner = banner;
    }

    /**
     * @param port the dashboard's port (0 for a free one)
     * @param ordersPerSecond how many orders the demo service places
     * @param out where the progress lines go
     * @param banner where the banner goes, with the dashboard URL and the run's admin token in it
     * @throws RuntimeException naming {@code --port} when the port is taken (a configuration error)
     */
    static DemoRunner start(int port, int ordersPerSecond, PrintWriter out, PrintWriter banner) throws Exception {
        if (port != 0) {
            checkPortFree(port);
        }
        DemoRunner demo = new DemoRunner(out, banner);
        try {
            demo.open(port, ordersPerSecond);
            return demo;
        } catch (Exception | Error e) {
            demo.close();
            throw e;
        }
    }

    private static void checkPortFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw TxoutboxServer.configurationError(
                    "--port",
                    "port " + port + " on 127.0.0.1 is already in use; stop the program using it or choose another,"
                            + " e.g. txoutbox demo --port 9090");
        }
    }

    private void open(int port, int ordersPerSecond) throws Exception {
        out.println("txoutbox demo: starting an embedded PostgreSQL (the first start unpacks it: a few seconds)...");
        out.flush();
        postgres = EmbeddedPostgres.builder()
                .setRegisterShutdownHook(false)
                .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
                .start();
        opened.add(postgres);
        SecureRandom random = new SecureRandom();
        byte[] key = new byte[32];
        random.nextBytes(key);
        String secret = "whsec_" + Base64.getEncoder().encodeToString(key);
        byte[] t = new byte[24];
        random.nextBytes(t);
        token = HexFormat.of().formatHex(t);
        receiver = DemoReceiver.start(secret);
        opened.add(receiver);
        String jdbcUrl = postgres.getJdbcUrl("postgres", "postgres");
        Map<String, String> env = Map.of(
                "DEMO_PORT", Integer.toString(port),
                "DEMO_TOKEN", token,
                "DEMO_JDBC_URL", jdbcUrl,
                "DEMO_RECEIVER_URL", receiver.url(),
                "DEMO_WEBHOOK_SECRET", secret);
        server = TxoutboxServer.start(demoYaml(), env::get);
        opened.add(server);
        DataSource app = postgres.getDatabase("postgres", "postgres");
        Outbox appOutbox = Outbox.builder(app).table("outbox").build();
        opened.add(appOutbox);
        producer = DemoProducer.start(app, appOutbox, ordersPerSecond);
        opened.add(producer);
        reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread th = new Thread(r, "demo-progress");
            th.setDaemon(true);
            return th;
        });
        reporter.scheduleAtFixedRate(this::progress, 10, 10, TimeUnit.SECONDS);
        banner();
    }

    static String demoYaml() {
        try (InputStream in = DemoRunner.class.getResourceAsStream("demo.yaml")) {
            if (in == null) {
                throw new IllegalStateException("io/txoutbox/demo/demo.yaml is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void banner() {
        out.flush();
        String base = "http://localhost:" + server.port();
        banner.println();
        banner.println("  txoutbox demo is running");
        banner.println();
        banner.println("  Dashboard   " + dashboardUrl());
        banner.println("              (the token is in the #fragment, which the browser never sends to the server)");
        banner.println();
        banner.println("  What runs:  an order service appends order.placed, payment.captured, shipment.requested and");
        banner.println("              email.requested in the same transaction as each order (every 10th rolls back);");
        banner.println("              the relay sends order.*, payment.* and shipment.* as signed webhooks to a local");
        banner.println("              receiver (" + receiver.url() + "), the rest to the log sink.");
        banner.println(
                "              The receiver answers 410 Gone to the first shipment.requested of every 7th order:");
        banner.println("              those go dead; press Revive on the dashboard and they go through.");
        banner.println();
        banner.println("  Admin API   export TXOUTBOX_ADMIN_TOKEN=" + token);
        banner.println("              curl -H \"Authorization: Bearer $TXOUTBOX_ADMIN_TOKEN\" " + base
                + "/api/sources/orders/stats");
        banner.println("  CLI         java -jar txoutbox-server/target/txoutbox-server-*.jar stats --server " + base);
        banner.println("              (also dead, revive --all, pause, resume, purge; --help on each)");
        banner.println("  Metrics     " + base + "/metrics");
        banner.println("  Database    " + postgres.getJdbcUrl("postgres", "postgres") + " (table outbox)");
        banner.println();
        banner.println("  Ctrl-C stops everything cleanly.");
        banner.println();
        banner.flush();
    }

    private void progress() {
        TxoutboxServer.Totals c = server.totals("orders").orElse(null);
        if (c == null) {
            return;
        }
        out.printf(
                "txoutbox demo: %d orders committed (%d declined, rolled back), %d events published, %d retried, %d"
                        + " dead, receiver accepted %d%n",
                producer.placed(), producer.declined(), c.published(), c.retried(), c.dead(), receiver.acceptedCount());
        out.flush();
    }

    String dashboardUrl() {
        return "http://localhost:" + server.port() + "/#token=" + token;
    }

    String token() {
        return token;
    }

    int port() {
        return server.port();
    }

    TxoutboxServer server() {
        return server;
    }

    DemoReceiver receiver() {
        return receiver;
    }

    /** Stops the order service, then the relays (batch in flight finished, leases returned), then the receiver and PostgreSQL. */
    @Override
    public void close() throws IOException {
        if (reporter != null) {
            reporter.shutdownNow();
        }
        // Reverse order of opening: producer, server, receiver, PostgreSQL.
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                out.println("txoutbox demo: closing " + opened.get(i).getClass().getSimpleName() + " failed: " + e);
            }
        }
        opened.clear();
        out.flush();
    }
}
