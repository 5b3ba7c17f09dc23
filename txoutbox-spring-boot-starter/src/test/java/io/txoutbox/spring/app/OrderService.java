package io.txoutbox.spring.app;

import io.txoutbox.OutboxEvent;
import io.txoutbox.spring.SpringOutbox;
import org.springframework.transaction.annotation.Transactional;

/** Saves an order with JPA and appends its event, in one {@code @Transactional} method. */
public class OrderService {
    private final PlacedOrderRepository orders;
    private final SpringOutbox outbox;

    OrderService(PlacedOrderRepository orders, SpringOutbox outbox) {
        this.orders = orders;
        this.outbox = outbox;
    }

    @Transactional
    public OutboxEvent placeOrder(String id, int totalCents, boolean failAfterAppend) {
        orders.save(new PlacedOrder(id, totalCents));
        OutboxEvent event = outbox.append(OutboxEvent.builder("order.placed")
                .aggregate("order", id)
                .jsonPayload("{\"orderId\":\"" + id + "\",\"totalCents\":" + totalCents + "}")
                .build());
        if (failAfterAppend) {
            throw new IllegalStateException("payment declined for " + id);
        }
        return event;
    }

    @Transactional
    public OutboxEvent capturePayment(String orderId) {
        return outbox.append(OutboxEvent.builder("payment.captured")
                .aggregate("order", orderId)
                .jsonPayload("{\"orderId\":\"" + orderId + "\"}")
                .build());
    }
}
