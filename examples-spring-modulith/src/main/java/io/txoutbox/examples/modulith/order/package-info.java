/** The order module: places orders and externalizes {@link io.txoutbox.examples.modulith.order.OrderPlaced}. */
package io.txoutbox.examples.modulith.order;
