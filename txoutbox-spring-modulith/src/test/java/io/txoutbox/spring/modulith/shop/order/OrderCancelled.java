package io.txoutbox.spring.modulith.shop.order;

import org.jmolecules.event.annotation.Externalized;

/** Externalized with jMolecules' annotation and no target: Modulith routes it by its application-local name. */
@Externalized
public record OrderCancelled(String orderId) {}
