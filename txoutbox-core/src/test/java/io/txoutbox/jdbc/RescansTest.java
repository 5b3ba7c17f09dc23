package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the rescans beside a relay's claims do with the batch a rescan took: kept for the relay's next
 * claim (once), the relay woken for it; at most one running per relay; the rows of a relay that stopped
 * meanwhile returned; a failure recorded for the cursor. The claims themselves are the database's, in the
 * integration tests ({@code PostgresKeysetClaimTest}, the late-commit contract).
 */
class RescansTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final Rescans rescans = new Rescans("t");
    private final AtomicInteger wakes = new AtomicInteger();
    private final List<String> released = new CopyOnWriteArrayList<>();

    RescansTest() {
        rescans.connect(wakes::incrementAndGet, released::add);
    }

    @AfterEach
    void close() {
        rescans.close();
    }

    private static ClaimResult batchOf(UUID id) {
        ClaimedEvent e = new ClaimedEvent(
                id,
                "order",
                "o-1",
                "order.placed",
                1,
                new byte[] {'{', '}'},
                "application/json",
                Map.of(),
                null,
                null,
                Instant.EPOCH,
                1,
                8);
        return new ClaimResult(List.of(e), Map.of());
    }

    @Test
    void a_rescans_batch_is_taken_once_by_the_next_claim_and_the_relays_are_woken() throws Exception {
        UUID id = UUID.randomUUID();
        CountDownLatch ran = new CountDownLatch(1);
        rescans.start(
                "r",
                () -> {
                    ran.countDown();
                    return batchOf(id);
                },
                () -> {});
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        ClaimResult taken = null;
        for (int i = 0; i < 500 && taken == null; i++) {
            taken = rescans.take("r", LEASE);
            Thread.sleep(10);
        }
        assertThat(taken).isNotNull();
        assertThat(taken.events()).extracting(ClaimedEvent::id).containsExactly(id);
        assertThat(rescans.take("r", LEASE)).as("once").isNull();
        assertThat(wakes.get()).isEqualTo(1);
    }

    @Test
    void a_batch_kept_past_half_its_lease_is_left_to_the_lease() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        rescans.start(
                "r",
                () -> {
                    ran.countDown();
                    return batchOf(UUID.randomUUID());
                },
                () -> {});
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 500 && wakes.get() == 0; i++) {
            Thread.sleep(10);
        }
        Thread.sleep(60);
        assertThat(rescans.take("r", Duration.ofMillis(100)))
                .as("kept over 50 ms of a 100 ms lease")
                .isNull();
        assertThat(rescans.take("r", LEASE)).as("and dropped").isNull();
    }

    @Test
    void one_rescan_runs_per_relay_at_a_time() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        rescans.start("r", () -> await(hold, calls), () -> {});
        rescans.start("r", () -> await(hold, calls), () -> {});
        hold.countDown();
        Thread.sleep(200);
        assertThat(calls.get()).isEqualTo(1);
        assertThat(rescans.take("r", LEASE)).as("an empty rescan keeps nothing").isNull();
        assertThat(wakes.get()).as("nor wakes anyone").isZero();
    }

    @Test
    void a_relay_that_stops_while_its_rescan_runs_has_that_rescans_rows_returned() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch hold = new CountDownLatch(1);
        rescans.start(
                "r",
                () -> {
                    started.countDown();
                    try {
                        hold.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return batchOf(UUID.randomUUID());
                },
                () -> {});
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        rescans.forget("r");
        hold.countDown();
        for (int i = 0; i < 500 && released.isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertThat(released).containsExactly("r");
        assertThat(rescans.take("r", LEASE)).isNull();
        assertThat(wakes.get()).isZero();
    }

    @Test
    void a_failed_rescan_is_recorded_and_the_next_may_start() throws Exception {
        CountDownLatch failed = new CountDownLatch(1);
        rescans.start(
                "r",
                () -> {
                    throw new IllegalStateException("the database is gone");
                },
                failed::countDown);
        assertThat(failed.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(50);
        CountDownLatch again = new CountDownLatch(1);
        rescans.start(
                "r",
                () -> {
                    again.countDown();
                    return ClaimResult.EMPTY;
                },
                () -> {});
        assertThat(again.await(5, TimeUnit.SECONDS)).isTrue();
    }

    private static ClaimResult await(CountDownLatch hold, AtomicInteger calls) {
        calls.incrementAndGet();
        try {
            hold.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ClaimResult.EMPTY;
    }
}
