package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL claims from a cursor (the first row of the relay's last claim) so as not to walk the
 * index entries of published rows again, and rescans from behind it when nothing is ahead (until a look
 * behind found nothing) or when the rescan interval has passed: a row due behind the cursor waits at most
 * that long, even while newer work never runs out. Once a relay has a cursor its rescans run beside its
 * claims, and the claim after a rescan returns what it took. Driven claim by claim through the store SPI,
 * as the relay calls it.
 */
class PostgresKeysetClaimTest extends DatabaseTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    @Test
    void a_row_behind_the_cursor_is_claimed_once_nothing_is_ahead_or_the_rescan_interval_has_passed() throws Exception {
        Outbox outbox = newOutbox();
        try (OutboxStore store = storeOf(outbox);
                LateAppend late = lateAppend(outbox)) {
            OutboxEvent behind = late.event();
            appendCommitted(outbox, event("order.placed", "a"), event("order.placed", "b"));
            assertThat(claim(store, "relay-1")).hasSize(2); // from the bottom: the first claim

            late.commit();
            OutboxEvent ahead =
                    appendCommitted(outbox, event("order.placed", "c")).get(0);
            assertThat(claim(store, "relay-1"))
                    .as("from the cursor: only what is ahead of the last claimed row")
                    .extracting(ClaimedEvent::id)
                    .containsExactly(ahead.id());
            assertThat(claim(store, "relay-2"))
                    .as("another relay has a cursor of its own and starts at the bottom")
                    .extracting(ClaimedEvent::id)
                    .containsExactly(behind.id());
        }
    }

    @Test
    void while_work_ahead_never_runs_out_a_claim_from_the_bottom_comes_within_the_rescan_interval() throws Exception {
        Outbox outbox = newOutbox();
        try (OutboxStore store = storeOf(outbox);
                LateAppend late = lateAppend(outbox)) {
            OutboxEvent behind = late.event();
            appendCommitted(outbox, event("order.placed", "a"));
            assertThat(claim(store, "relay-1")).hasSize(1);
            late.commit();

            appendCommitted(outbox, event("order.placed", "b"));
            assertThat(claim(store, "relay-1")).extracting(ClaimedEvent::id).doesNotContain(behind.id());

            // Something is always ahead of the cursor; within the rescan interval (one second, or twenty
            // times a slow claim from the bottom) a rescan beside the claims starts from the floor and takes
            // the late row, which the claim after it returns. Work ahead is claimed meanwhile.
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            List<UUID> claimed = new ArrayList<>();
            List<UUID> appended = new ArrayList<>();
            while (!claimed.contains(behind.id()) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                appended.add(appendCommitted(outbox, event("order.placed", "c"))
                        .get(0)
                        .id());
                claimed.addAll(
                        claim(store, "relay-1").stream().map(ClaimedEvent::id).toList());
                assertThat(appended.size()
                                - claimed.stream().filter(appended::contains).count())
                        .as("work ahead waits for at most the claim that returns the rescan's batch")
                        .isLessThanOrEqualTo(1);
            }
            assertThat(claimed).as("the rescan took the late row").contains(behind.id());
            claimed.addAll(
                    claim(store, "relay-1").stream().map(ClaimedEvent::id).toList());
            assertThat(claimed).as("every row once").doesNotHaveDuplicates().containsAll(appended);
        }
    }

    @Test
    void a_row_committed_late_behind_the_cursor_after_a_look_behind_found_nothing_is_still_claimed_once()
            throws Exception {
        Outbox outbox = newOutbox();
        try (OutboxStore store = storeOf(outbox);
                LateAppend late = lateAppend(outbox)) {
            OutboxEvent behind = late.event();
            appendCommitted(outbox, event("order.placed", "a"));
            assertThat(claim(store, "relay-1")).hasSize(1);
            assertThat(claim(store, "relay-1"))
                    .as("nothing ahead, nothing behind yet")
                    .isEmpty();

            late.commit();
            // Just behind the cursor: the near look-behind (ClaimCursor.NEAR_RANGE) finds it at once, or, on a
            // machine slow enough to put the two appends further apart, the rescan from the floor.
            assertThat(firstRowsClaimed(store, "relay-1"))
                    .extracting(ClaimedEvent::id)
                    .containsExactly(behind.id());
            assertThat(claim(store, "relay-1")).as("claimed once").isEmpty();
        }
    }

    @Test
    void a_relay_whose_first_claim_found_nothing_still_claims_a_row_committed_late_below_it_once() throws Exception {
        Outbox outbox = newOutbox();
        try (OutboxStore store = storeOf(outbox);
                LateAppend late = lateAppend(outbox)) {
            OutboxEvent behind = late.event();
            Thread.sleep(400); // further behind the cursor than the near look-behind reaches (200 ms)
            assertThat(claim(store, "relay-1"))
                    .as("nothing committed: the cursor stays where this claim looked up to")
                    .isEmpty();
            OutboxEvent ahead =
                    appendCommitted(outbox, event("order.placed", "a")).get(0);
            assertThat(claim(store, "relay-1"))
                    .as("from that cursor")
                    .extracting(ClaimedEvent::id)
                    .containsExactly(ahead.id());

            late.commit();
            // Behind the cursor and beyond the near look-behind: a rescan beside the claims takes it, and a
            // claim after it returns it.
            assertThat(firstRowsClaimed(store, "relay-1"))
                    .extracting(ClaimedEvent::id)
                    .containsExactly(behind.id());
            assertThat(claim(store, "relay-1")).as("claimed once").isEmpty();
        }
    }

    @Test
    void an_expired_lease_behind_the_cursor_is_taken_over_when_nothing_is_ahead() throws Exception {
        Outbox outbox = newOutbox();
        try (OutboxStore store = storeOf(outbox)) {
            appendCommitted(outbox, event("order.placed", "a"), event("order.placed", "b"));
            List<ClaimedEvent> crashed = store.claim("crashed", 1, Duration.ofSeconds(3), Instant.now())
                    .events();
            assertThat(crashed).hasSize(1);
            assertThat(claim(store, "relay-1"))
                    .as("the other row; the crashed relay's is leased")
                    .hasSize(1)
                    .extracting(ClaimedEvent::id)
                    .doesNotContain(crashed.get(0).id());

            Thread.sleep(3_500); // the crashed relay's lease expires behind relay-1's cursor
            // Nothing ahead: a look behind (the near one, or a rescan beside the claims, whose batch the
            // next claim returns) finds the crashed relay's row.
            assertThat(firstRowsClaimed(store, "relay-1"))
                    .extracting(ClaimedEvent::id)
                    .containsExactly(crashed.get(0).id());
            assertThat(claim(store, "relay-1")).as("taken over once").isEmpty();
        }
    }

    /**
     * A transaction left open with one event appended: its row is older than rows appended after it but
     * becomes visible only at {@link #commit()}, behind a relay's cursor. Closing it uncommitted rolls back.
     */
    private record LateAppend(Connection connection, OutboxEvent event) implements AutoCloseable {
        void commit() throws SQLException {
            connection.commit();
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }

    private LateAppend lateAppend(Outbox outbox) throws SQLException {
        Connection late = dataSource().getConnection();
        try {
            late.setAutoCommit(false);
            return new LateAppend(late, outbox.append(late, event("order.placed", "late")));
        } catch (RuntimeException | SQLException e) {
            late.close();
            throw e;
        }
    }

    private OutboxStore storeOf(Outbox outbox) {
        return Outbox.builder(dataSource()).table(outbox.table()).buildStore();
    }

    private static List<ClaimedEvent> claim(OutboxStore store, String owner) {
        return store.claim(owner, 100, LEASE, Instant.now()).events();
    }

    /**
     * @return the first claim of the relay that takes rows, claiming every 50 ms for up to 20 s (a row behind
     *     the cursor may come with a rescan beside the claims, which a later claim returns), or an empty list
     */
    private static List<ClaimedEvent> firstRowsClaimed(OutboxStore store, String owner) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<ClaimedEvent> taken = claim(store, owner);
        while (taken.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            taken = claim(store, owner);
        }
        return taken;
    }
}
