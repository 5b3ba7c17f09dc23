package io.txoutbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.txoutbox.internal.transport.PreparedBatch;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Router;
import io.txoutbox.test.transport.ClaimedEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The channel's batch state against the local RabbitMQ (5672, guest/guest): what happens to a batch
 * whose publishing thread gives up while the broker's confirms are still on their way.
 */
class ConfirmingChannelTest {

    @Test
    void confirms_that_arrive_after_an_interrupted_wait_leave_the_batch_alone() throws Exception {
        ConnectionFactory factory = LocalRabbit.factory();
        factory.setAutomaticRecoveryEnabled(false);
        try (Connection connection = factory.newConnection("txoutbox-test-confirming-channel")) {
            String queue;
            try (Channel admin = connection.createChannel()) {
                queue = admin.queueDeclare().getQueue(); // server-named, exclusive, auto-delete
            }
            Channel raw = connection.createChannel();
            ConfirmingChannel confirming = ConfirmingChannel.of(raw, "");
            // Called after the channel's own listener, for the same frame, on the connection thread.
            AtomicLong lastAcked = new AtomicLong();
            raw.addConfirmListener(new ConfirmListener() {
                @Override
                public void handleAck(long deliveryTag, boolean multiple) {
                    lastAcked.accumulateAndGet(deliveryTag, Math::max);
                }

                @Override
                public void handleNack(long deliveryTag, boolean multiple) {
                    lastAcked.accumulateAndGet(deliveryTag, Math::max);
                }
            });

            // The connection thread delivers returns and confirms, one frame after the other: while it
            // is held in another channel's return listener, the batch's confirms wait in the socket.
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Channel holder = connection.createChannel();
            holder.addReturnListener(returned -> {
                held.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            holder.basicPublish("", "txoutbox-test-nobody-" + System.nanoTime(), true, null, new byte[0]);
            try {
                assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

                // Two events the queue takes, one nothing routes: unheld, those would be two PUBLISHED
                // and one DEAD.
                List<ClaimedEvent> events = new ArrayList<>(ClaimedEvents.batch(2, queue));
                events.addAll(ClaimedEvents.batch(1, "txoutbox-test-nowhere-" + System.nanoTime()));
                PreparedBatch<AMQP.BasicProperties> batch = PreparedBatch.prepare(
                        events, Router.BY_AGGREGATE_TYPE, Messages::routingKeyProblem, Messages::properties, "m");
                assertThat(batch.ready()).hasSize(3);
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Thread publishing = new Thread(
                        () -> {
                            try {
                                confirming.publishAndAwait(batch, TimeUnit.SECONDS.toNanos(30));
                            } catch (Throwable e) {
                                thrown.set(e);
                            }
                        },
                        "txoutbox-test-publishing");
                publishing.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> publishing.getState() == Thread.State.TIMED_WAITING);
                publishing.interrupt();
                publishing.join(TimeUnit.SECONDS.toMillis(10));

                assertThat(publishing.isAlive()).isFalse();
                assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
                assertThat(batch.outcomes()).containsOnlyNulls();
                // What RabbitPublisher does next, outside the channel's lock.
                batch.fillMissing(PublishOutcome.retry("interrupted while waiting for RabbitMQ's confirms"));

                List<PublishOutcome> filled = List.copyOf(batch.outcomes());

                // The late return and acks reach the channel now; they must find no batch to settle.
                release.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> lastAcked.get() >= 3);
                assertThat(batch.outcomes()).isEqualTo(filled).allSatisfy(o -> {
                    assertThat(o.outcome()).isEqualTo(Outcome.RETRY);
                    assertThat(o.reason()).isEqualTo("interrupted while waiting for RabbitMQ's confirms");
                });
            } finally {
                release.countDown();
            }
        }
    }
}
