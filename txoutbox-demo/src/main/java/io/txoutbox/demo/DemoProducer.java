package io.txoutbox.demo;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's order service: it places orders at a steady rate, each in one transaction that inserts
 * the order row and appends its events ({@code order.placed}, {@code payment.captured}, {@code
 * shipment.requested}, {@code email.requested}). Every tenth payment is declined: that transaction
 * rolls back and its events never exist.
 */
final class DemoProducer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DemoProducer.class);
    private static final String[] CUSTOMERS = {"ada", "grace", "linus", "barbara", "ken", "margaret", "alan"};

    private final DataSource dataSource;
    private final Outbox outbox;
    private final long periodMillis;
    private final Thread thread;
    private final AtomicLong placed = new AtomicLong();
    private final AtomicLong declined = new AtomicLong();
    private volatile boolean running = true;

    private DemoProducer(DataSource dataSource, Outbox outbox, int ordersPerSecond) {
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.periodMillis = Math.max(10, 1000 / ordersPerSecond);
        this.thread = new Thread(this::loop, "demo-order-service");
        this.thread.setDaemon(true);
    }

    static DemoProducer start(DataSource dataSource, Outbox outbox, int ordersPerSecond) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS shop_orders (id text PRIMARY KEY, customer text NOT NULL,"
                    + " total_cents integer NOT NULL, placed_at timestamptz NOT NULL DEFAULT now())");
        }
        DemoProducer p = new DemoProducer(dataSource, outbox, ordersPerSecond);
        p.thread.start();
        return p;
    }

    long placed() {
        return placed.get();
    }

    long declined() {
        return declined.get();
    }

    private void loop() {
        SplittableRandom random = new SplittableRandom(42);
        long n = 0;
        while (running) {
            n++;
            try {
                placeOrder(n, random);
            } catch (SQLException | RuntimeException e) {
                if (running) {
                    log.warn("demo order service: order {} failed: {}", n, e.toString());
                }
            }
            try {
                Thread.sleep(periodMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void placeOrder(long n, SplittableRandom random) throws SQLException {
        String order = "o-" + n;
        String customer = CUSTOMERS[random.nextInt(CUSTOMERS.length)];
        int cents = 500 + random.nextInt(20_000);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO shop_orders (id, customer, total_cents) VALUES (?, ?, ?)")) {
                ps.setString(1, order);
                ps.setString(2, customer);
                ps.setInt(3, cents);
                ps.executeUpdate();
            }
            String json =
                    "{\"orderId\":\"" + order + "\",\"customer\":\"" + customer + "\",\"totalCents\":" + cents + "}";
            outbox.appendAll(
                    c,
                    List.of(
                            event("order.placed", order, json),
                            event("payment.captured", order, json),
                            event("shipment.requested", order, json),
                            event(
                                    "email.requested",
                                    order,
                                    "{\"to\":\"" + customer + "@example.com\",\"template\":\"order-confirmation\"}")));
            if (n % 10 == 0) {
                c.rollback(); // the payment was declined: the order and its events vanish together
                declined.incrementAndGet();
            } else {
                c.commit();
                placed.incrementAndGet();
            }
        }
        outbox.committed();
    }

    private static OutboxEvent event(String type, String order, String json) {
        return OutboxEvent.builder(type)
                .aggregate("order", order)
                .jsonPayload(json)
                .build();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
