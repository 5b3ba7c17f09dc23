package io.txoutbox.spring.modulith.shop.order;

import java.time.Instant;
import org.springframework.modulith.events.Externalized;

/** Externalized with Modulith's annotation: target {@code orders}, key the order id (SpEL). */
@Externalized("orders::#{orderId}")
public record OrderPlaced(String orderId, int totalCents, String region, Instant placedAt) {}
