package io.txoutbox.examples.spring;

import io.txoutbox.OutboxEvent;
import io.txoutbox.spring.SpringOutbox;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: the order row (JPA) and its events (outbox) commit together in one {@code
 * @Transactional} method, or not at all.
 */
@Service
public class OrderService {
    private final CustomerOrderRepository orders;
    private final SpringOutbox outbox;

    OrderService(CustomerOrderRepository orders, SpringOutbox outbox) {
        this.orders = orders;
        this.outbox = outbox;
    }

    /**
     * @param orderId the new order's id
     * @param totalCents its total
     * @param paymentDeclined throw after the writes, so the transaction rolls back
     * @param confirmBySms confirm by SMS, an event type no handler takes (it ends dead)
     * @throws IllegalStateException when the payment is declined: nothing of the order remains
     */
    @Transactional
    public void placeOrder(String orderId, int totalCents, boolean paymentDeclined, boolean confirmBySms) {
        orders.save(new CustomerOrder(orderId, totalCents));
        outbox.append(OutboxEvent.builder("order.placed")
                .aggregate("order", orderId)
                .jsonPayload("{\"orderId\":\"" + orderId + "\",\"totalCents\":" + totalCents + "}")
                .build());
        outbox.append(OutboxEvent.builder(confirmBySms ? "sms.confirmation" : "email.confirmation")
                .aggregate("order", orderId)
                .jsonPayload("{\"orderId\":\"" + orderId + "\"}")
                .build());
        if (paymentDeclined) {
            throw new IllegalStateException("payment declined for " + orderId);
        }
    }
}
