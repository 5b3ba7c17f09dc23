package io.txoutbox.examples.modulith;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import io.txoutbox.examples.modulith.order.OrderPlaced;
import io.txoutbox.examples.modulith.order.OrderService;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spring.OutboxHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Modulith shop whose {@code @Externalized} events leave through txoutbox. The order module
 * publishes plain Spring application events; txoutbox appends the externalized ones to the outbox table in
 * the publishing transaction, and the relay delivers them. Every fourth payment is declined: the order and
 * its event roll back and are never delivered. A module-internal event is never appended at all. Prints
 * what the "broker" received (route, key, headers, payload) and the outbox stats, then exits.
 *
 * <p>The broker here is an in-process handler, so that the example needs nothing but PostgreSQL; define a
 * transport's publisher bean instead ({@code RabbitPublisher}, {@code KafkaPublisher}, ...) and the same
 * events go to a real broker, the route as the topic or routing key, the key as the message key.
 *
 * <p>Runs against the PostgreSQL given by {@code TXOUTBOX_PG_URL} (default {@code
 * jdbc:postgresql://localhost:5432/test}, user {@code TXOUTBOX_PG_USER} or {@code postgres}).
 */
@SpringBootApplication
public class ShopModulithExample {
    private static final int ORDERS = 8;
    private static final long WAIT_MILLIS = 30_000;

    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private final Set<String> deliveredTypes = ConcurrentHashMap.newKeySet();

    /**
     * @param args Spring Boot arguments, for example {@code --txoutbox.relay.batch-size=10}
     * @throws InterruptedException if interrupted while waiting for the relay
     */
    public static void main(String[] args) throws InterruptedException {
        ConfigurableApplicationContext context = SpringApplication.run(ShopModulithExample.class, args);
        try {
            run(context);
        } finally {
            SpringApplication.exit(context);
        }
    }

    /** Stands in for the broker: prints every event the relay delivers. */
    @Bean
    OutboxHandler broker() {
        return OutboxHandler.of("io.txoutbox.examples.modulith.*", this::receive);
    }

    private void receive(ClaimedEvent event) {
        delivered.add(event.aggregateId());
        deliveredTypes.add(event.eventType());
        say("broker   <- route=%s key=%s type=%s", event.destination(), event.aggregateId(), event.eventType());
        say("            headers %s", new TreeMap<>(event.headers()));
        say("            payload %s", new String(event.payload(), StandardCharsets.UTF_8));
    }

    private static void run(ConfigurableApplicationContext context) throws InterruptedException {
        OrderService service = context.getBean(OrderService.class);
        ShopModulithExample app = context.getBean(ShopModulithExample.class);
        Outbox outbox = context.getBean(Outbox.class);

        List<String> committed = new ArrayList<>();
        List<String> rolledBack = new ArrayList<>();
        for (int i = 1; i <= ORDERS; i++) {
            String orderId = "order-" + i;
            try {
                service.placeOrder(orderId, "customer-" + (i % 3), 1_500 * i, i % 4 == 0);
                committed.add(orderId);
                say("service  -> %s committed; OrderPlaced is in the outbox with it", orderId);
            } catch (IllegalStateException e) {
                rolledBack.add(orderId);
                say("service  -> %s rolled back (%s): its OrderPlaced never leaves", orderId, e.getMessage());
            }
        }

        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (!app.delivered.containsAll(committed) && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }

        OutboxStats stats = outbox.admin().stats();
        say("");
        say("orders committed: %d of %d; events delivered: %d", committed.size(), ORDERS, app.delivered.size());
        say("outbox: pending=%d inFlight=%d dead=%d", stats.pending(), stats.inFlight(), stats.dead());
        if (!app.delivered.equals(Set.copyOf(committed))
                || !app.deliveredTypes.equals(Set.of(OrderPlaced.class.getName()))) {
            throw new IllegalStateException("expected only the OrderPlaced events of " + committed + " delivered, saw "
                    + app.delivered + " of types " + app.deliveredTypes + " (rolled back: " + rolledBack + ")");
        }
        say("every committed order's event was delivered; no rolled-back order's, and no OrderPriced (internal)");
    }

    private static void say(String format, Object... args) {
        System.out.println(String.format(format, args));
    }
}
