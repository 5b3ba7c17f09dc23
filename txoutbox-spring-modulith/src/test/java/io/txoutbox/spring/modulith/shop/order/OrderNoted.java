package io.txoutbox.spring.modulith.shop.order;

/** A module-internal event: not externalized. */
public record OrderNoted(String orderId) {}
