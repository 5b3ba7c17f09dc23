/**
 * <b>SPI</b>: what extenders implement or receive. Transports implement {@link io.txoutbox.spi.Publisher}
 * and read {@link io.txoutbox.spi.ClaimedEvent}s, with {@link io.txoutbox.spi.Router} and {@link
 * io.txoutbox.spi.MessageHeaders} for the common routing and headers; their builders extend {@link
 * io.txoutbox.spi.AbstractPublisherBuilder}, whose {@code router(Router)} is part of each transport's API;
 * {@link io.txoutbox.spi.RelayListener} hears every batch; {@link io.txoutbox.spi.OutboxStore} is where
 * the table lives, implemented by txoutbox's JDBC store.
 */
package io.txoutbox.spi;
