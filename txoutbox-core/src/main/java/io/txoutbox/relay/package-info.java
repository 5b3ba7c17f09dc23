/**
 * <b>API</b>: the relay that publishes an outbox table at least once. {@link io.txoutbox.relay.Relay} and
 * its builder, {@link io.txoutbox.relay.Backoff} and {@link io.txoutbox.relay.RelayMetrics} are public;
 * the loop, the publish with its timeout and lease extension, and the settling of outcomes are
 * package-private. A relay needs only a store ({@link io.txoutbox.spi.OutboxStore}), a clock and a
 * {@link io.txoutbox.spi.Publisher}.
 */
package io.txoutbox.relay;
