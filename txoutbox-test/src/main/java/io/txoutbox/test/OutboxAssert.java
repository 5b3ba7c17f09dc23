package io.txoutbox.test;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import java.util.List;
import org.assertj.core.api.AbstractAssert;

/**
 * Fluent assertions on an outbox table, read through its operations API (one query per assertion):
 *
 * <pre>{@code
 * assertThatOutbox(outbox).hasPending(0).hasDead(1).hasDeadEventWithReasonContaining("unroutable");
 * }</pre>
 */
public final class OutboxAssert extends AbstractAssert<OutboxAssert, Outbox> {

    private OutboxAssert(Outbox actual) {
        super(actual, OutboxAssert.class);
    }

    /**
     * @param outbox the outbox to check
     * @return the assertion
     */
    public static OutboxAssert assertThatOutbox(Outbox outbox) {
        return new OutboxAssert(outbox);
    }

    private OutboxStats stats() {
        isNotNull();
        return actual.admin().stats();
    }

    /**
     * @param expected pending (not leased) events, including retrying and delayed ones
     * @return this assertion
     */
    public OutboxAssert hasPending(long expected) {
        return count("pending", stats().pending(), expected);
    }

    /**
     * @param expected events leased by a relay
     * @return this assertion
     */
    public OutboxAssert hasInFlight(long expected) {
        return count("in flight", stats().inFlight(), expected);
    }

    /**
     * @param expected pending events that failed at least once
     * @return this assertion
     */
    public OutboxAssert hasRetrying(long expected) {
        return count("retrying", stats().retrying(), expected);
    }

    /**
     * @param expected dead events
     * @return this assertion
     */
    public OutboxAssert hasDead(long expected) {
        return count("dead", stats().dead(), expected);
    }

    /**
     * @param expected published events kept by retention
     * @return this assertion
     */
    public OutboxAssert hasRetainedPublished(long expected) {
        return count("retained published", stats().published(), expected);
    }

    /** @return this assertion, if nothing is pending, in flight or dead */
    public OutboxAssert isDrained() {
        OutboxStats s = stats();
        if (s.pending() + s.inFlight() + s.dead() != 0) {
            failWithMessage(
                    "Expected outbox %s to be drained but it has %s pending, %s in flight, %s dead",
                    actual.table(), s.pending(), s.inFlight(), s.dead());
        }
        return this;
    }

    /**
     * @param text a part of the last error
     * @return this assertion, if some dead event's last error contains the text
     */
    public OutboxAssert hasDeadEventWithReasonContaining(String text) {
        isNotNull();
        List<DeadEvent> dead = actual.admin().dead(DeadQuery.first(DeadQuery.MAX_LIMIT));
        boolean found = dead.stream()
                .anyMatch(d -> d.lastError() != null && d.lastError().contains(text));
        if (!found) {
            failWithMessage(
                    "Expected a dead event in %s whose reason contains <%s> but the reasons were %s",
                    actual.table(),
                    text,
                    dead.stream().map(DeadEvent::lastError).toList());
        }
        return this;
    }

    private OutboxAssert count(String what, long actualCount, long expected) {
        if (actualCount != expected) {
            failWithMessage(
                    "Expected outbox %s to have %s %s events but it has %s",
                    actual.table(), expected, what, actualCount);
        }
        return this;
    }
}
