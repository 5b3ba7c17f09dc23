package io.txoutbox.examples.modulith.order;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders. The order row and the {@link OrderPlaced} event commit together in one {@code
 * @Transactional} method, or not at all: the service only publishes a Spring application event, and
 * txoutbox appends the externalized ones to the outbox in this very transaction.
 */
@Service
public class OrderService {
    private final JdbcTemplate jdbc;
    private final ApplicationEventPublisher events;

    OrderService(JdbcTemplate jdbc, ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.events = events;
    }

    /**
     * @param orderId the new order's id
     * @param customer who places it
     * @param totalCents its total
     * @param paymentDeclined throw after the writes, so the transaction rolls back
     * @throws IllegalStateException when the payment is declined: neither the order nor its event remains
     */
    @Transactional
    public void placeOrder(String orderId, String customer, int totalCents, boolean paymentDeclined) {
        jdbc.update(
                "INSERT INTO example_modulith_orders (id, customer, total_cents) VALUES (?, ?, ?)",
                orderId,
                customer,
                totalCents);
        events.publishEvent(new OrderPlaced(orderId, customer, totalCents));
        events.publishEvent(new OrderPriced(orderId, totalCents));
        if (paymentDeclined) {
            throw new IllegalStateException("payment declined for " + orderId);
        }
    }
}
