/**
 * <b>API</b>: in-process handlers routed by event type, as a {@link io.txoutbox.spi.Publisher} ({@link
 * io.txoutbox.handler.EventHandlers}).
 */
package io.txoutbox.handler;
