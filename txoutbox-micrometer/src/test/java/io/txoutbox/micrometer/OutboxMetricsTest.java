package io.txoutbox.micrometer;

import static io.txoutbox.micrometer.PostgresOutbox.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutboxMetricsTest {
    private PostgresOutbox pg;
    private SimpleMeterRegistry registry;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp() {
        pg = new PostgresOutbox();
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        pg.close();
    }

    @Test
    void thousands_of_event_types_make_at_most_max_types_series_and_count_the_rest_as_other() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = track(OutboxMetrics.builder(outbox, registry).build());
        Relay relay = track(outbox.relay(new RecordingPublisher())
                .name("many")
                .batchSize(1000)
                .listener(metrics.relayListener())
                .build());
        int n = 5_000;
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(event("type." + i, "a-" + i));
        }
        outbox.inTransaction(c -> outbox.appendAll(c, events));
        relay.start();

        await().atMost(Duration.ofSeconds(60)).until(() -> published() == n);
        var series = registry.find("txoutbox.events.published").counters();
        assertThat(series).hasSize(OutboxMetrics.Builder.DEFAULT_MAX_TYPES + 1);
        assertThat(registry.get("txoutbox.events.published")
                        .tags("type", OutboxMetrics.OTHER_TYPE)
                        .counter()
                        .count())
                .isEqualTo(n - OutboxMetrics.Builder.DEFAULT_MAX_TYPES);
        assertThat(registry.getMeters()).hasSizeLessThan(100);
        assertThatThrownBy(() ->
                        OutboxMetrics.builder(outbox, registry).maxTypes(0).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("OutboxMetrics.Builder.maxTypes is 0");
    }

    @Test
    void published_counter_and_latency_timer_count_every_event_a_running_relay_publishes() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = track(OutboxMetrics.builder(outbox, registry).build());
        RecordingPublisher broker = new RecordingPublisher();
        Relay relay = track(outbox.relay(broker)
                .name("orders")
                .listener(metrics.relayListener())
                .build());
        relay.start();

        int n = 25;
        for (int i = 0; i < n; i++) {
            OutboxEvent e = event(i % 2 == 0 ? "order.placed" : "order.paid", "o-" + i);
            outbox.inTransaction(c -> outbox.append(c, e));
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> published() == n);
        Timer latency = registry.get("txoutbox.delivery.latency")
                .tags("relay", "orders", "table", outbox.table())
                .timer();
        assertThat(latency.count()).isEqualTo(n);
        assertThat(latency.max(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(registry.get("txoutbox.events.published")
                        .tags("type", "order.placed")
                        .counter()
                        .count())
                .isEqualTo(13);
        assertThat(registry.get("txoutbox.events.published")
                        .tags("type", "order.paid")
                        .counter()
                        .count())
                .isEqualTo(12);
        Timer batches = registry.get("txoutbox.publish.duration")
                .tags("relay", "orders")
                .timer();
        assertThat(batches.count()).isBetween(1L, (long) n);
        assertThat(broker.publishedCount()).isEqualTo(n);
    }

    @Test
    void the_latency_timer_publishes_the_configured_percentiles_and_histogram() {
        Map<String, DistributionStatisticConfig> configs = new ConcurrentHashMap<>();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                configs.put(id.getName(), config);
                return config;
            }
        });
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = track(OutboxMetrics.builder(outbox, registry)
                .percentiles(0.5, 0.95, 0.99)
                .histogram(true)
                .build());
        Relay relay = track(outbox.relay(new RecordingPublisher())
                .listener(metrics.relayListener())
                .build());
        outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-1")));
        relay.runOnce();

        Timer latency = registry.get("txoutbox.delivery.latency").timer();
        assertThat(latency.takeSnapshot().percentileValues())
                .extracting(v -> v.percentile())
                .containsExactly(0.5, 0.95, 0.99);
        assertThat(configs.get("txoutbox.delivery.latency").isPublishingHistogram())
                .isTrue();
        assertThat(configs.get("txoutbox.publish.duration").isPublishingHistogram())
                .isTrue();
    }

    @Test
    void retried_and_dead_events_are_counted_by_type_and_not_as_published() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = track(OutboxMetrics.builder(outbox, registry).build());
        RecordingPublisher broker = new RecordingPublisher().answer(e -> switch (e.eventType()) {
            case "email.sent" -> PublishOutcome.retry("smtp down");
            case "sms.sent" -> PublishOutcome.dead("no such route");
            default -> PublishOutcome.PUBLISHED;
        });
        Relay relay = track(outbox.relay(broker)
                .name("r1")
                .listener(metrics.relayListener())
                .build());
        outbox.inTransaction(c -> outbox.appendAll(
                c,
                List.of(
                        event("order.placed", "o-1"),
                        event("email.sent", "o-1"),
                        event("email.sent", "o-2"),
                        event("sms.sent", "o-1"))));

        assertThat(relay.runOnce()).isEqualTo(4);

        assertThat(count("txoutbox.events.published", "order.placed")).isEqualTo(1);
        assertThat(count("txoutbox.events.retried", "email.sent")).isEqualTo(2);
        assertThat(count("txoutbox.events.dead", "sms.sent")).isEqualTo(1);
        assertThat(registry.find("txoutbox.events.published")
                        .tags("type", "email.sent")
                        .counter())
                .isNull();
        assertThat(registry.get("txoutbox.delivery.latency").timer().count()).isEqualTo(1);
    }

    @Test
    void a_publisher_that_throws_counts_a_publish_error_and_retries() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = track(OutboxMetrics.builder(outbox, registry).build());
        Relay relay = track(outbox.relay(batch -> {
                    throw new IllegalStateException("broker client broken");
                })
                .name("broken")
                .listener(metrics.relayListener())
                .build());
        outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-1")));

        relay.runOnce();

        assertThat(registry.get("txoutbox.relay.errors")
                        .tags("relay", "broken", "phase", "publish")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(count("txoutbox.events.retried", "order.placed")).isEqualTo(1);
        assertThat(registry.find("txoutbox.events.published").counter()).isNull();
    }

    @Test
    void gauges_match_the_outbox_stats() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = track(OutboxMetrics.builder(outbox, registry)
                .statsRefresh(Duration.ZERO)
                .build());
        Relay relay = track(outbox.relay(new RecordingPublisher()
                        .answer(e -> e.eventType().equals("sms.sent")
                                ? PublishOutcome.dead("no route")
                                : PublishOutcome.retry("down")))
                .listener(metrics.relayListener())
                .build());
        outbox.inTransaction(c -> outbox.appendAll(
                c, List.of(event("sms.sent", "o-1"), event("sms.sent", "o-2"), event("email.sent", "o-3"))));
        relay.runOnce(); // two dead, one retrying
        outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-4"))); // pending

        OutboxStats stats = outbox.admin().stats();
        assertThat(stats.dead()).isEqualTo(2);
        assertThat(stats.retrying()).isEqualTo(1);
        assertThat(gauge("txoutbox.events.pending")).isEqualTo(stats.pending()).isEqualTo(2);
        assertThat(gauge("txoutbox.events.in.flight"))
                .isEqualTo(stats.inFlight())
                .isZero();
        assertThat(gauge("txoutbox.events.retrying")).isEqualTo(stats.retrying());
        assertThat(gauge("txoutbox.events.dead.current")).isEqualTo(stats.dead());
        assertThat(registry.get("txoutbox.oldest.pending.age").timeGauge().value(TimeUnit.SECONDS))
                .isPositive()
                .isLessThan(600);
    }

    @Test
    void gauges_reuse_one_stats_read_until_the_refresh_interval_passed() {
        MockClock clock = new MockClock();
        SimpleMeterRegistry mocked = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        Outbox outbox = pg.outbox().build();
        track(OutboxMetrics.builder(outbox, mocked)
                .statsRefresh(Duration.ofSeconds(10))
                .build());
        assertThat(mocked.get("txoutbox.events.pending").gauge().value()).isZero();

        outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-1")));
        clock.add(Duration.ofSeconds(9));
        assertThat(mocked.get("txoutbox.events.pending").gauge().value())
                .as("read again within the interval: the cached stats")
                .isZero();

        clock.add(Duration.ofSeconds(2));
        assertThat(mocked.get("txoutbox.events.pending").gauge().value()).isEqualTo(1);
    }

    @Test
    void close_removes_every_meter_and_later_batches_register_none() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics = OutboxMetrics.builder(outbox, registry).build();
        Relay relay = track(outbox.relay(new RecordingPublisher().retryType("email.sent", "down"))
                .listener(metrics.relayListener())
                .build());
        outbox.inTransaction(
                c -> outbox.appendAll(c, List.of(event("order.placed", "o-1"), event("email.sent", "o-1"))));
        relay.runOnce();
        metrics.relayListener().onError("relay", "claim", new IllegalStateException("test"));
        assertThat(names())
                .contains(
                        "txoutbox.events.published",
                        "txoutbox.events.retried",
                        "txoutbox.relay.errors",
                        "txoutbox.publish.duration",
                        "txoutbox.delivery.latency",
                        "txoutbox.events.pending",
                        "txoutbox.events.in.flight",
                        "txoutbox.events.retrying",
                        "txoutbox.events.dead.current",
                        "txoutbox.oldest.pending.age");

        metrics.close();
        assertThat(registry.getMeters()).isEmpty();

        outbox.inTransaction(c -> outbox.append(c, event("order.placed", "o-2")));
        relay.runOnce();
        assertThat(registry.getMeters()).isEmpty();
        metrics.close(); // idempotent
    }

    @Test
    void an_event_type_tag_can_be_turned_off() {
        Outbox outbox = pg.outbox().build();
        OutboxMetrics metrics =
                track(OutboxMetrics.builder(outbox, registry).typeTag(false).build());
        Relay relay = track(outbox.relay(new RecordingPublisher())
                .listener(metrics.relayListener())
                .build());
        outbox.inTransaction(c -> outbox.appendAll(c, List.of(event("a.b", "o-1"), event("c.d", "o-1"))));
        relay.runOnce();

        Counter published = registry.get("txoutbox.events.published").counter();
        assertThat(published.count()).isEqualTo(2);
        assertThat(published.getId().getTag("type")).isNull();
    }

    @Test
    void a_percentile_out_of_range_is_rejected_at_build() {
        Outbox outbox = pg.outbox().build();
        assertThatThrownBy(() -> OutboxMetrics.builder(outbox, registry)
                        .percentiles(0.5, 1.5)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("OutboxMetrics.Builder.percentiles")
                .hasMessageContaining("1.5");
        assertThat(registry.getMeters()).isEmpty();
    }

    private double published() {
        return registry.find("txoutbox.events.published").counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    private double count(String name, String type) {
        return registry.get(name).tags("type", type).counter().count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    private List<String> names() {
        return registry.getMeters().stream()
                .map(Meter::getId)
                .map(Meter.Id::getName)
                .toList();
    }

    private <T extends AutoCloseable> T track(T closeable) {
        toClose.add(closeable);
        return closeable;
    }
}
