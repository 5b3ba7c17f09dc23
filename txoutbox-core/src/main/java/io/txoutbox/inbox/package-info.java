/**
 * <b>API</b>: the consumer side, {@link io.txoutbox.inbox.Inbox}: records processed event ids in the
 * consumer's own transaction so that each event is applied once.
 */
package io.txoutbox.inbox;
