/**
 * <b>API</b>: what an application touches. {@link io.txoutbox.Outbox} appends events in the caller's
 * transaction and hands out relays ({@link io.txoutbox.Outbox#relay}) and the operations API ({@link
 * io.txoutbox.OutboxAdmin}); {@link io.txoutbox.OutboxEvent} is what is appended; {@link
 * io.txoutbox.Dialect} and {@link io.txoutbox.OutboxTable} name the database and the table's columns;
 * every failure is an {@link io.txoutbox.OutboxException}. The package-private classes here are the
 * outbox's implementation.
 */
package io.txoutbox;
