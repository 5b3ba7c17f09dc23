package io.txoutbox.examples;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.handler.EventHandlers;
import io.txoutbox.relay.Relay;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A small order service: each order is saved together with its events in one transaction; a relay
 * hands the events to in-process handlers after the commit. Orders whose payment is declined roll back,
 * and their events never leave. One event type has no handler, so it ends dead for an operator.
 *
 * <p>Runs against the PostgreSQL given by {@code TXOUTBOX_PG_URL} (default {@code
 * jdbc:postgresql://localhost:5432/test}, user {@code TXOUTBOX_PG_USER} or {@code postgres}).
 */
public final class OrderServiceExample {
    private static final int ORDERS = 20;

    private OrderServiceExample() {}

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(env("TXOUTBOX_PG_URL", "jdbc:postgresql://localhost:5432/test"));
        dataSource.setUser(env("TXOUTBOX_PG_USER", "postgres"));

        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS example_orders, example_outbox CASCADE");
            st.execute("CREATE TABLE example_orders (id text PRIMARY KEY, total_cents int NOT NULL)");
        }
        Outbox outbox = Outbox.builder(dataSource)
                .table("example_outbox")
                .createSchemaIfMissing(true)
                .build();

        AtomicInteger charged = new AtomicInteger();
        AtomicInteger emailed = new AtomicInteger();
        EventHandlers handlers = EventHandlers.builder()
                .on("order.placed", e -> {
                    charged.incrementAndGet();
                    say("billing  <- %s %s (event %s)", e.eventType(), e.payloadAsString(), e.id());
                })
                .on("email.*", e -> {
                    emailed.incrementAndGet();
                    say("mailer   <- %s for order %s", e.eventType(), e.aggregateId());
                })
                .build();

        try (Relay relay = outbox.relay(handlers).name("example").build()) {
            relay.start();
            int committed = 0;
            for (int n = 1; n <= ORDERS; n++) {
                int i = n;
                String orderId = "order-" + i;
                boolean declined = i % 5 == 0;
                try {
                    outbox.inTransaction(c -> {
                        placeOrder(c, orderId, 1_000 + i);
                        outbox.append(
                                c,
                                OutboxEvent.builder("order.placed")
                                        .aggregate("order", orderId)
                                        .jsonPayload(
                                                "{\"orderId\":\"" + orderId + "\",\"totalCents\":" + (1_000 + i) + "}")
                                        .build());
                        outbox.append(
                                c,
                                OutboxEvent.builder(i == 7 ? "sms.confirmation" : "email.confirmation")
                                        .aggregate("order", orderId)
                                        .jsonPayload("{\"orderId\":\"" + orderId + "\"}")
                                        .build());
                        if (declined) {
                            throw new IllegalStateException("payment declined");
                        }
                        return null;
                    });
                    committed++;
                    say("service  -> %s saved with its events", orderId);
                } catch (IllegalStateException e) {
                    say("service  -> %s rolled back (%s): its events never leave", orderId, e.getMessage());
                }
            }
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            OutboxStats stats = outbox.admin().stats();
            while ((stats.pending() > 0 || stats.inFlight() > 0)
                    && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
                stats = outbox.admin().stats();
            }
            say("");
            say("orders committed: %d of %d; charged %d, emailed %d", committed, ORDERS, charged.get(), emailed.get());
            say("outbox now: %d pending, %d in flight, %d dead", stats.pending(), stats.inFlight(), stats.dead());
            for (DeadEvent dead : outbox.admin().dead(DeadQuery.first(10))) {
                say("dead: %s %s/%s: %s", dead.eventType(), dead.aggregateType(), dead.aggregateId(), dead.lastError());
            }
            if (charged.get() != committed || stats.pending() != 0) {
                throw new IllegalStateException("the example did not drain: " + stats);
            }
        }
    }

    private static void placeOrder(Connection c, String orderId, int totalCents) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO example_orders (id, total_cents) VALUES (?, ?)")) {
            ps.setString(1, orderId);
            ps.setInt(2, totalCents);
            ps.executeUpdate();
        }
    }

    private static void say(String format, Object... args) {
        System.out.println(String.format(format, args));
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
