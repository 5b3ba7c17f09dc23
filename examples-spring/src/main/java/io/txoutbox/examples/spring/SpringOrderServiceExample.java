package io.txoutbox.examples.spring;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import io.txoutbox.spring.OutboxHandler;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot order service on the txoutbox starter. It places a few orders through a {@code
 * @Transactional} service (JPA and the outbox in one transaction), declines every fourth payment (its
 * order and events roll back and are never handled), lets handler beans print the committed events,
 * shows the outbox health, stats and meters, and exits.
 *
 * <p>Runs against the PostgreSQL given by {@code TXOUTBOX_PG_URL} (default {@code
 * jdbc:postgresql://localhost:5432/test}, user {@code TXOUTBOX_PG_USER} or {@code postgres}).
 */
@SpringBootApplication
public class SpringOrderServiceExample {
    private static final int ORDERS = 12;
    private static final long WAIT_MILLIS = 30_000;

    private final AtomicInteger handled = new AtomicInteger();

    /**
     * @param args Spring Boot arguments, for example {@code --txoutbox.relay.batch-size=10}
     * @throws InterruptedException if interrupted while waiting for the relay
     */
    public static void main(String[] args) throws InterruptedException {
        ConfigurableApplicationContext context = SpringApplication.run(SpringOrderServiceExample.class, args);
        try {
            run(context);
        } finally {
            SpringApplication.exit(context);
        }
    }

    /** Billing takes {@code order.placed}. */
    @Bean
    OutboxHandler billing() {
        return OutboxHandler.of("order.placed", event -> {
            handled.incrementAndGet();
            say("billing  <- %s %s (event %s)", event.eventType(), event.payloadAsString(), event.id());
        });
    }

    /** The mailer takes every {@code email.*} type. */
    @Bean
    OutboxHandler mailer() {
        return OutboxHandler.of("email.*", event -> {
            handled.incrementAndGet();
            say("mailer   <- %s for order %s", event.eventType(), event.aggregateId());
        });
    }

    private static void run(ConfigurableApplicationContext context) throws InterruptedException {
        OrderService service = context.getBean(OrderService.class);
        SpringOrderServiceExample app = context.getBean(SpringOrderServiceExample.class);
        Outbox outbox = context.getBean(Outbox.class);

        int committed = 0;
        for (int i = 1; i <= ORDERS; i++) {
            String orderId = "order-" + i;
            boolean declined = i % 4 == 0;
            boolean sms = i == 7;
            try {
                service.placeOrder(orderId, 1_000 + i, declined, sms);
                committed++;
                say("service  -> %s committed with its 2 events", orderId);
            } catch (IllegalStateException e) {
                say("service  -> %s rolled back (%s): its events never leave", orderId, e.getMessage());
            }
        }

        // Every committed order has two events; the one confirmed by SMS has no handler and ends dead.
        int expected = committed * 2 - 1;
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while ((app.handled.get() < expected || outbox.admin().stats().dead() < 1)
                && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }

        OutboxStats stats = outbox.admin().stats();
        Health health = context.getBean("txoutboxHealthIndicator", HealthIndicator.class)
                .health();
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        double published = meters.find("txoutbox.events.published").counters().stream()
                .mapToDouble(Counter::count)
                .sum();
        say("");
        say("orders committed: %d of %d; events handled: %d of %d", committed, ORDERS, app.handled.get(), expected);
        say("outbox: pending=%d inFlight=%d dead=%d", stats.pending(), stats.inFlight(), stats.dead());
        say("health: %s %s", health.getStatus(), health.getDetails().getOrDefault("reason", ""));
        say(
                "meters: txoutbox.events.published=%.0f, txoutbox.events.dead.current=%.0f",
                published, meters.get("txoutbox.events.dead.current").gauge().value());
        say(
                "revive the dead event once a handler exists: POST /actuator/txoutbox/revive {\"type\":\"sms.confirmation\"}");
        if (app.handled.get() != expected) {
            throw new IllegalStateException("expected " + expected + " handled events, saw " + app.handled.get());
        }
    }

    private static void say(String format, Object... args) {
        System.out.println(String.format(format, args));
    }
}
