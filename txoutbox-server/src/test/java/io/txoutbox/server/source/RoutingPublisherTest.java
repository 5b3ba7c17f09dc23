package io.txoutbox.server.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The per-route logic of {@link RoutingPublisher}, with fake transports (pure logic; the real brokers'
 * outage is {@code RouteOutageTest}): a route that does not answer has its own events retried within the
 * route deadline while the other route's outcomes count, is then held back without being called, and
 * is tried again once the hold is over.
 */
class RoutingPublisherTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static ClaimedEvent event(String type) {
        return new ClaimedEvent(
                UUID.randomUUID(),
                "order",
                "o-1",
                type,
                1,
                new byte[0],
                "application/json",
                Map.of(),
                null,
                null,
                T0,
                1,
                null);
    }

    /** Answers nothing, ever, and counts its calls. */
    static final class Silent implements Publisher {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
            calls.incrementAndGet();
            return new CompletableFuture<>();
        }
    }

    /** Publishes everything at once. */
    static final class Fine implements Publisher {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
            calls.incrementAndGet();
            List<PublishOutcome> out = new ArrayList<>();
            batch.forEach(e -> out.add(PublishOutcome.PUBLISHED));
            return CompletableFuture.completedFuture(out);
        }
    }

    @Test
    void a_silent_route_retries_its_own_events_keeps_the_others_and_is_held_back_then_tried_again() throws Exception {
        Silent silent = new Silent();
        Fine fine = new Fine();
        SettableClock clock = new SettableClock(T0);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RoutingPublisher p = new RoutingPublisher(
                List.of(
                        new RoutingPublisher.Target("kafka", List.of("order.*"), "kafka", silent, "kafka x"),
                        new RoutingPublisher.Target("redis", List.of("audit.*"), "redis", fine, "redis y")),
                Duration.ofMillis(500),
                registry,
                Tags.of("source", "s"),
                clock);
        List<ClaimedEvent> batch = List.of(event("order.placed"), event("audit.logged"), event("order.paid"));

        // The batch completes within the route deadline (500 ms - 100 ms), before the relay's timeout.
        List<PublishOutcome> first = p.publish(batch).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(first.get(1)).isEqualTo(PublishOutcome.PUBLISHED);
        assertThat(first.get(0).outcome()).isEqualTo(Outcome.RETRY);
        assertThat(first.get(0).reason()).contains("route 'kafka' failed: no confirmation within 400 ms");
        assertThat(first.get(2).outcome()).isEqualTo(Outcome.RETRY);
        assertThat(p.routes().get(0).failing()).isTrue();
        assertThat(p.routes().get(1).failing()).isFalse();

        // While held back, the silent route is not called: its events come back for retry at once, with
        // the time the hold ends, and the other route's events are not slowed by it.
        List<PublishOutcome> second = p.publish(batch).toCompletableFuture().get(1, TimeUnit.SECONDS);
        assertThat(silent.calls).hasValue(1);
        assertThat(second.get(1)).isEqualTo(PublishOutcome.PUBLISHED);
        assertThat(second.get(0).outcome()).isEqualTo(Outcome.RETRY);
        assertThat(second.get(0).notBefore()).isEqualTo(T0.plusSeconds(1));
        assertThat(second.get(0).reason()).contains("route 'kafka' (kafka) is failing, not sent");

        // After the hold, one call tries the broker again.
        clock.advance(Duration.ofSeconds(1));
        p.publish(batch).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(silent.calls).hasValue(2);
        assertThat(fine.calls).hasValue(3);

        RouteStats.Snapshot kafka = p.routes().get(0).snapshot();
        assertThat(kafka.published()).isZero();
        assertThat(kafka.retried()).isEqualTo(6);
        assertThat(kafka.heldBack()).isEqualTo(2);
        assertThat(kafka.failures()).isEqualTo(2);
        assertThat(registry.get("txoutbox.route.events")
                        .tags("route", "redis", "outcome", "published")
                        .counter()
                        .count())
                .isEqualTo(3.0);
        assertThat(registry.get("txoutbox.route.failing")
                        .tags("route", "kafka")
                        .gauge()
                        .value())
                .isEqualTo(1.0);
    }

    @Test
    void a_route_that_fails_fast_is_not_held_back() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Publisher refusing = batch -> {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new java.io.IOException("connection refused"));
        };
        RoutingPublisher p = new RoutingPublisher(
                List.of(new RoutingPublisher.Target("rabbit", List.of("*"), "rabbitmq", refusing, "rabbitmq x")),
                Duration.ofSeconds(10),
                null,
                Tags.empty(),
                new SettableClock(T0));
        for (int i = 0; i < 3; i++) {
            List<PublishOutcome> o =
                    p.publish(List.of(event("a"))).toCompletableFuture().get(1, TimeUnit.SECONDS);
            assertThat(o.get(0).reason()).contains("IOException: connection refused");
        }
        // Failing fast holds nobody up: every batch still tries the broker.
        assertThat(calls).hasValue(3);
        assertThat(p.routes().get(0).failing()).isFalse();
    }
}
