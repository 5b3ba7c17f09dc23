package io.txoutbox.spring.modulith.shop.order;

import org.springframework.modulith.events.Externalized;

/** Externalized; its note may be anything, including what the JSON mapper cannot write. */
@Externalized("orders::#{orderId}")
public record OrderNoteAdded(String orderId, Object note) {}
