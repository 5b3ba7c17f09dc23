package io.txoutbox.examples.modulith.order;

/**
 * Stays inside the application: not {@code @Externalized}, so it is never appended to the outbox.
 *
 * @param orderId the order
 * @param totalCents its total
 */
public record OrderPriced(String orderId, int totalCents) {}
