package io.txoutbox;

/**
 * In ordered mode, what a dead event does to the later events of its aggregate.
 *
 * @see Outbox.Builder#ordered(DeadHeadPolicy)
 */
public enum DeadHeadPolicy {
    /**
     * The aggregate waits: its later events stay pending until an operator revives or deletes the dead
     * one. Order is never broken. Blocked aggregates show in {@link OutboxStats#blockedAggregates()} and
     * as {@link DeadEvent#heldBack()} in the dead listing. The default.
     */
    BLOCK,
    /**
     * The aggregate goes on: its later events are published, and the dead one stays for an operator.
     * Order holds among the events that are published.
     */
    SKIP
}
