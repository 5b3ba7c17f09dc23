/**
 * Internal: what the broker transports share so that it is written once: a publisher's own threads and
 * closed state ({@link io.txoutbox.internal.transport.PublisherThreads}), how a batch is routed and its
 * messages built ({@link io.txoutbox.internal.transport.PreparedBatch}, {@link
 * io.txoutbox.internal.transport.Route}), the builders' checks ({@link
 * io.txoutbox.internal.transport.Settings}), which payloads travel as text ({@link
 * io.txoutbox.internal.transport.ContentTypes}). Public only so that the transports' packages reach it;
 * applications do not use it, and it has no compatibility promise of its own.
 */
package io.txoutbox.internal.transport;
