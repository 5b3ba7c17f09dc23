package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.RelayListener;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Acceptance 4: a relay stalled past its lease cannot mark rows that another relay has claimed since. */
abstract class LeaseFencingContract extends DatabaseTest {

    @Test
    void stalled_relay_cannot_mark_rows_another_relay_claimed_after_its_lease_expired() throws Exception {
        Outbox outbox = newOutbox();
        UUID id = appendCommitted(outbox, event("order.placed", "o-1")).get(0).id();

        CountDownLatch releaseStalled = new CountDownLatch(1);
        CountDownLatch stalledHasBatch = new CountDownLatch(1);
        List<Set<UUID>> fencedReports = new CopyOnWriteArrayList<>();
        // A stall of the relay's own thread between the broker's confirmation and the mark (a long GC
        // pause, a frozen process) that outlasts the lease; no timeout can cut it short. The relay reads
        // its clock there, so a clock that blocks once the batch is confirmed stalls exactly that thread.
        Publisher stalls = batch -> {
            stalledHasBatch.countDown();
            return CompletableFuture.completedFuture(List.of(PublishOutcome.PUBLISHED));
        };
        Relay stalled = stallingOutbox(outbox, stalledHasBatch, releaseStalled)
                .relay(stalls)
                .name("stalled")
                .leaseDuration(Duration.ofMillis(1_500))
                .publishTimeout(Duration.ofMillis(1_000))
                .listener(new RelayListener() {
                    @Override
                    public void onBatch(BatchReport report) {
                        fencedReports.add(report.fenced());
                    }
                })
                .build();

        // The stalled relay claims, then stalls past its lease.
        CompletableFuture<Integer> stalledRun = CompletableFuture.supplyAsync(stalled::runOnce);
        assertThat(stalledHasBatch.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> expiredLeases(outbox) == 1);

        CountDownLatch releaseTakeover = new CountDownLatch(1);
        CountDownLatch takeoverHasBatch = new CountDownLatch(1);
        List<ClaimedEvent> takeoverSaw = new CopyOnWriteArrayList<>();
        Publisher slowButFine = batch -> CompletableFuture.supplyAsync(() -> {
            takeoverSaw.addAll(batch);
            takeoverHasBatch.countDown();
            waitFor(releaseTakeover);
            return List.of(PublishOutcome.PUBLISHED);
        });
        Relay takeover = outbox.relay(slowButFine).name("takeover").build();
        CompletableFuture<Integer> takeoverRun = CompletableFuture.supplyAsync(takeover::runOnce);
        assertThat(takeoverHasBatch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(column(outbox, id, "lease_owner")).isEqualTo(takeover.owner());

        // The stalled relay wakes up and marks the row published: refused, the row is the takeover's.
        releaseStalled.countDown();
        assertThat(stalledRun.get(20, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(fencedReports).singleElement().isEqualTo(Set.of(id));
        assertThat(stalled.metrics().fenced()).isEqualTo(1);
        assertThat(column(outbox, id, "lease_owner")).as("still the takeover's").isEqualTo(takeover.owner());
        assertThat(column(outbox, id, "status")).isEqualTo("pending");
        assertThat(column(outbox, id, "last_error"))
                .as("the stalled relay's error was not written")
                .isNull();

        releaseTakeover.countDown();
        assertThat(takeoverRun.get(20, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(takeoverSaw).singleElement().satisfies(e -> assertThat(e.id())
                .isEqualTo(id));
        assertThat(takeover.metrics().published()).isEqualTo(1);
        assertThat(rows(outbox)).isZero();
        stalled.stop();
        takeover.stop();
    }

    @Test
    void late_mark_of_a_stalled_relay_does_not_resurrect_a_row_another_relay_already_published() throws Exception {
        Outbox outbox = newOutbox();
        OutboxEvent event =
                appendCommitted(outbox, event("order.placed", "o-2")).get(0);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch hasBatch = new CountDownLatch(1);
        Publisher stalls = batch -> {
            hasBatch.countDown();
            return CompletableFuture.completedFuture(List.of(PublishOutcome.retry("broker said try later")));
        };
        Relay stalled = stallingOutbox(outbox, hasBatch, release)
                .relay(stalls)
                .name("stalled")
                .leaseDuration(Duration.ofMillis(1_500))
                .publishTimeout(Duration.ofMillis(1_400))
                .build();
        CompletableFuture<Integer> stalledRun = CompletableFuture.supplyAsync(stalled::runOnce);
        assertThat(hasBatch.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> expiredLeases(outbox) == 1);
        io.txoutbox.test.RecordingPublisher fine = new io.txoutbox.test.RecordingPublisher();
        try (Relay other = outbox.relay(fine).name("other").build()) {
            assertThat(other.runOnce()).isEqualTo(1);
        }
        assertThat(fine.publishedIds()).containsExactly(event.id());
        release.countDown();
        stalledRun.get(20, TimeUnit.SECONDS);
        assertThat(rows(outbox))
                .as("the stalled relay's retry mark found no row it owns")
                .isZero();
        assertThat(stalled.metrics().fenced()).isEqualTo(1);
        stalled.stop();
    }

    /**
     * The same table through an outbox whose clock blocks, once the publisher has the batch, until
     * released: the relay thread that reads it next stalls after the broker answered, before the mark.
     */
    private Outbox stallingOutbox(Outbox outbox, CountDownLatch published, CountDownLatch release) {
        return Outbox.builder(dataSource())
                .table(outbox.table())
                .clock(() -> {
                    if (published.getCount() == 0) {
                        waitFor(release);
                    }
                    return java.time.Instant.now();
                })
                .build();
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
