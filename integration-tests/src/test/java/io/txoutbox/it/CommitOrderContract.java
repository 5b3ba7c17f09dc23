package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.sql.Connection;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Acceptance 5: a transaction that inserted first but commits last is not skipped. A relay that
 * remembered a high-water mark of ids or times would lose it; the claim reads what is pending instead.
 *
 * <p>Repeated: the second {@code runOnce} must return the early row although a rescan may start beside its
 * claim (on PostgreSQL), and a race between the two failed one run in four before the claim looked near
 * its cursor first.
 */
abstract class CommitOrderContract extends DatabaseTest {

    @RepeatedTest(20)
    void events_of_transactions_that_commit_in_the_opposite_order_of_their_inserts_are_both_published()
            throws Exception {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build();
                Connection early = dataSource().getConnection();
                Connection late = dataSource().getConnection()) {
            early.setAutoCommit(false);
            late.setAutoCommit(false);
            OutboxEvent first = outbox.append(early, event("order.placed", "early"));
            OutboxEvent second = outbox.append(late, event("order.placed", "late"));
            assertThat(first.id()).isLessThan(second.id());

            late.commit();
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(broker.publishedIds()).containsExactly(second.id());

            early.commit();
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(broker.publishedIds()).containsExactly(second.id(), first.id());
        }
        assertThat(rows(outbox)).isZero();
    }
}
