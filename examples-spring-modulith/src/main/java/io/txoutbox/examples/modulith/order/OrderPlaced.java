package io.txoutbox.examples.modulith.order;

import org.springframework.modulith.events.Externalized;

/**
 * Leaves the application: Modulith's {@code @Externalized} names the target ({@code orders}) and the key
 * (the order id, a SpEL expression on the event).
 *
 * @param orderId the order
 * @param customer who placed it
 * @param totalCents its total
 */
@Externalized("orders::#{orderId}")
public record OrderPlaced(String orderId, String customer, int totalCents) {}
