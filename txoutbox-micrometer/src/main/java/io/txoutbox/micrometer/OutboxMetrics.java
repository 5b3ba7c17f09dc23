package io.txoutbox.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.GivenSettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.RelayListener;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for one outbox table and the relays that publish it. Gauges read {@link
 * io.txoutbox.OutboxAdmin#stats()} at most once per {@link Builder#statsRefresh(Duration) refresh
 * interval}, on the first scrape after it passed (one query; concurrent scrapes share it), so a busy
 * scrape schedule does not load the database. Counters and timers come from the {@link #relayListener()}
 * you register on each relay.
 *
 * <pre>{@code
 * OutboxMetrics metrics = OutboxMetrics.builder(outbox, registry).build();
 * Relay relay = outbox.relay(publisher).listener(metrics.relayListener()).build();
 * ...
 * metrics.close();   // removes every meter it registered
 * }</pre>
 *
 * <p>Meters (every one tagged {@code table}, plus the given common tags):
 *
 * <ul>
 *   <li>{@code txoutbox.events.published}, {@code txoutbox.events.retried}, {@code txoutbox.events.dead}
 *       (counters, tags {@code relay} and {@code type}; fenced events are not counted; the first {@link
 *       Builder#maxTypes(int)} types seen have their own {@code type}, later ones count as {@code <other>});
 *   <li>{@code txoutbox.events.fenced} (counter, tag {@code relay}): marks refused because another relay
 *       took the lease over;
 *   <li>{@code txoutbox.relay.errors} (counter, tags {@code relay} and {@code phase}: claim, publish,
 *       complete, listen, purge);
 *   <li>{@code txoutbox.publish.duration} (timer, tag {@code relay}): one batch, from the hand-over to
 *       the publisher to its last confirmation;
 *   <li>{@code txoutbox.delivery.latency} (timer, tag {@code relay}): per published event, from its
 *       append (commit) to the confirmation, on the outbox clock;
 *   <li>gauges {@code txoutbox.events.pending}, {@code txoutbox.events.in.flight}, {@code
 *       txoutbox.events.retrying}, {@code txoutbox.events.dead.current} (the dead events in the table
 *       now) and {@code txoutbox.oldest.pending.age} (seconds; the oldest unpublished event).
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} removes every meter this object registered; the listener then
 * ignores further batches.
 */
public final class OutboxMetrics implements AutoCloseable {
    static final String UNREADABLE_TYPE = "<unreadable>";
    /** The {@code type} tag of every event type beyond the first {@link Builder#maxTypes(int)}. */
    public static final String OTHER_TYPE = "<other>";

    private final Outbox outbox;
    private final MeterRegistry registry;
    private final Tags tags;
    private final double[] percentiles;
    private final boolean histogram;
    private final boolean typeTag;
    private final int maxTypes;
    private final Set<String> types = ConcurrentHashMap.newKeySet();
    private final ReentrantLock typesLock = new ReentrantLock();
    private volatile boolean typesFull;
    private final StatsCache stats;
    private final Set<Meter.Id> registered = ConcurrentHashMap.newKeySet();
    private final Map<MeterKey, Counter> counters = new ConcurrentHashMap<>();
    private final Map<MeterKey, Timer> timers = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final RelayListener listener = new Listener();

    private OutboxMetrics(Builder b, MetricsSettings settings) {
        this.outbox = b.outbox;
        this.registry = b.registry;
        this.tags = b.tags.and(Tag.of("table", b.outbox.table()));
        this.percentiles = settings.percentiles();
        this.histogram = settings.histogram();
        this.typeTag = settings.typeTag();
        this.maxTypes = settings.maxTypes();
        this.stats = new StatsCache(b.outbox, b.registry.config().clock(), settings.statsRefresh());
        gauge(
                "txoutbox.events.pending",
                "Events waiting to be published, not leased (retrying included)",
                s -> s.pending());
        gauge("txoutbox.events.in.flight", "Events leased by a relay right now", OutboxStats::inFlight);
        gauge("txoutbox.events.retrying", "Pending events that failed at least once", OutboxStats::retrying);
        gauge(
                "txoutbox.events.dead.current",
                "Dead events in the table now: they wait for an operator",
                OutboxStats::dead);
        register(TimeGauge.builder(
                        "txoutbox.oldest.pending.age",
                        stats,
                        TimeUnit.SECONDS,
                        c -> c.read(s -> s.oldestPendingAge().toNanos() / 1e9))
                .description("Age of the oldest unpublished event: the real delivery delay")
                .tags(tags)
                .register(registry));
    }

    /**
     * @param outbox the outbox whose table the gauges read and whose clock measures latency
     * @param registry where the meters go
     * @return a builder
     */
    public static Builder builder(Outbox outbox, MeterRegistry registry) {
        return new Builder(outbox, registry);
    }

    /**
     * @return the listener to register on every relay of this outbox ({@code
     *     Relay.Builder#listener}); it counts and times each batch
     */
    public RelayListener relayListener() {
        return listener;
    }

    /** Removes every meter this object registered. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            removeAll();
        }
    }

    private void removeAll() {
        for (Meter.Id id : registered) {
            registry.remove(id);
        }
        registered.clear();
        counters.clear();
        timers.clear();
    }

    private void gauge(String name, String description, ToDoubleFunction<OutboxStats> value) {
        register(Gauge.builder(name, stats, c -> c.read(value))
                .description(description)
                .tags(tags)
                .baseUnit("events")
                .register(registry));
    }

    private <M extends Meter> M register(M meter) {
        registered.add(meter.getId());
        return meter;
    }

    private Counter counter(String name, String description, Tags extra) {
        return counters.computeIfAbsent(
                new MeterKey(name, extra),
                k -> register(Counter.builder(name)
                        .description(description)
                        .tags(tags)
                        .tags(extra)
                        .baseUnit("events")
                        .register(registry)));
    }

    private Timer timer(String name, String description, String relay) {
        return timers.computeIfAbsent(
                new MeterKey(name, Tags.of("relay", relay)),
                k -> register(Timer.builder(name)
                        .description(description)
                        .tags(tags)
                        .tag("relay", relay)
                        .publishPercentiles(percentiles)
                        .publishPercentileHistogram(histogram)
                        .register(registry)));
    }

    /** A meter's name and its per-batch tags: the cache key that spares a registry lookup per event. */
    private record MeterKey(String name, Tags tags) {}

    private Tags typeTags(String relay, String type) {
        return typeTag ? Tags.of("relay", relay, "type", typeLabel(type)) : Tags.of("relay", relay);
    }

    /**
     * The first {@code maxTypes} event types seen keep their own series for the life of this object; every
     * later one counts under {@link #OTHER_TYPE}. A type never moves between its own series and the other
     * one: counters stay monotonic, so {@code rate()} and sums over types stay right.
     */
    private String typeLabel(String type) {
        if (type.equals(UNREADABLE_TYPE) || types.contains(type)) {
            return type;
        }
        if (typesFull) {
            return OTHER_TYPE;
        }
        typesLock.lock();
        try {
            if (types.contains(type)) {
                return type;
            }
            if (types.size() < maxTypes) {
                types.add(type);
                return type;
            }
            typesFull = true;
            return OTHER_TYPE;
        } finally {
            typesLock.unlock();
        }
    }

    private final class Listener implements RelayListener {
        @Override
        public void onBatch(BatchReport report) {
            if (closed.get()) {
                return;
            }
            String relay = report.relay();
            timer(
                            "txoutbox.publish.duration",
                            "One batch: from the hand-over to the publisher to its last confirmation",
                            relay)
                    .record(report.publishDuration());
            Timer latency = null;
            Instant now = outbox.clock().instant();
            for (int i = 0; i < report.events().size(); i++) {
                ClaimedEvent event = report.events().get(i);
                if (report.fenced().contains(event.id())) {
                    continue;
                }
                Outcome outcome = report.outcomes().get(i).outcome();
                switch (outcome) {
                    case PUBLISHED -> {
                        counter(
                                        "txoutbox.events.published",
                                        "Events the broker confirmed",
                                        typeTags(relay, event.eventType()))
                                .increment();
                        if (latency == null) {
                            latency = timer(
                                    "txoutbox.delivery.latency",
                                    "From an event's append to the broker's confirmation",
                                    relay);
                        }
                        Duration age =
                                event.createdAt() == null ? Duration.ZERO : Duration.between(event.createdAt(), now);
                        // A clock that stepped back between append and publish: count it, as zero.
                        latency.record(age.isNegative() ? Duration.ZERO : age);
                    }
                    case RETRY ->
                        counter(
                                        "txoutbox.events.retried",
                                        "Events scheduled for another attempt",
                                        typeTags(relay, event.eventType()))
                                .increment();
                    case DEAD ->
                        counter(
                                        "txoutbox.events.dead",
                                        "Events that gave up: after their last attempt, or a permanent failure",
                                        typeTags(relay, event.eventType()))
                                .increment();
                }
            }
            if (report.unreadable() > 0) {
                counter(
                                "txoutbox.events.dead",
                                "Events that gave up: after their last attempt, or a permanent failure",
                                typeTags(relay, UNREADABLE_TYPE))
                        .increment(report.unreadable());
            }
            if (!report.fenced().isEmpty()) {
                counter(
                                "txoutbox.events.fenced",
                                "Marks refused because another relay took the lease over",
                                Tags.of("relay", relay))
                        .increment(report.fenced().size());
            }
            if (closed.get()) {
                removeAll(); // a close raced with this batch: remove what it may have re-created
            }
        }

        @Override
        public void onError(String relay, String phase, Throwable error) {
            if (closed.get()) {
                return;
            }
            counter(
                            "txoutbox.relay.errors",
                            "Failures the relay survived, by phase",
                            Tags.of("relay", relay, "phase", phase))
                    .increment();
        }
    }

    @Override
    public String toString() {
        return "OutboxMetrics[table=" + outbox.table() + ", percentiles=" + Arrays.toString(percentiles)
                + ", histogram=" + histogram + ", maxTypes=" + maxTypes + ", closed=" + closed.get() + "]";
    }

    /** Builds {@link OutboxMetrics}; every setting is checked at {@link #build()}. */
    public static final class Builder {
        /** How often the gauges read the table at most, unless configured. */
        public static final Duration DEFAULT_STATS_REFRESH = Duration.ofSeconds(10);
        /** How many event types get series of their own, unless configured. */
        public static final int DEFAULT_MAX_TYPES = 50;
        /** The largest {@link #maxTypes(int)} accepted. */
        public static final int MAX_TYPES_LIMIT = 10_000;

        final Outbox outbox;
        final MeterRegistry registry;
        Tags tags = Tags.empty();
        /** The settings given, checked at {@link #build()}, and how a refusal names each. */
        private final GivenSettings given =
                new GivenSettings(MetricsSettings.SETTINGS, MetricsSettings.JAVA, "the meters");

        private Builder(Outbox outbox, MeterRegistry registry) {
            this.outbox = outbox;
            this.registry = registry;
        }

        /**
         * @param tags tags added to every meter (for example the application's name)
         * @return this builder
         */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
            return this;
        }

        /**
         * @param percentiles client-side percentiles of the two timers, each in [0, 1] (default 0.5 and
         *     0.99; none to publish none)
         * @return this builder
         */
        public Builder percentiles(double... percentiles) {
            return set(
                    MetricsSettings.PERCENTILES,
                    Objects.requireNonNull(percentiles, "percentiles").clone());
        }

        /**
         * @param histogram publish histogram buckets of the two timers, for server-side percentiles
         *     (default false)
         * @return this builder
         */
        public Builder histogram(boolean histogram) {
            return set(MetricsSettings.HISTOGRAM, histogram);
        }

        /**
         * @param typeTag tag the event counters with the event type (default true); turn it off when
         *     event types are many or not under your control
         * @return this builder
         */
        public Builder typeTag(boolean typeTag) {
            return set(MetricsSettings.TYPE_TAG, typeTag);
        }

        /**
         * @param maxTypes how many event types get {@code type}-tagged series of their own (default 50, 1 to
         *     10,000): the first ones seen; every later type counts under {@code type="<other>"}, so that a
         *     table with thousands of types cannot grow the registry (and every scrape) without bound
         * @return this builder
         */
        public Builder maxTypes(int maxTypes) {
            return set(MetricsSettings.MAX_TYPES, maxTypes);
        }

        /**
         * @param statsRefresh how long the gauges reuse one stats read (default 10 s); a scrape after it
         *     passed reads the table again
         * @return this builder
         */
        public Builder statsRefresh(Duration statsRefresh) {
            return set(MetricsSettings.STATS_REFRESH, statsRefresh);
        }

        /**
         * Sets every setting of a checked value, as a front end does that read and checked them itself
         * (naming a refused setting in its own spelling), before customizations in Java.
         *
         * @param settings the settings
         * @return this builder
         */
        public Builder settings(MetricsSettings settings) {
            given.adopt(settings.given(), settings.spelling());
            return this;
        }

        /**
         * Sets one setting through its descriptor; the typed setters do the same.
         *
         * @param setting one of {@link MetricsSettings#SETTINGS}
         * @param value its value; {@code null} for its default
         * @param <T> its type
         * @return this builder
         */
        public <T> Builder set(Setting<T> setting, T value) {
            given.set(setting, value);
            return this;
        }

        /**
         * Registers the gauges and returns the metrics; counters and timers appear with the first batch.
         *
         * @return the metrics
         * @throws OutboxValidationException naming a setting that is missing or out of bounds
         */
        public OutboxMetrics build() {
            if (outbox == null) {
                throw new OutboxValidationException(
                        "OutboxMetrics.Builder.outbox", null, "OutboxMetrics.Builder.outbox is missing");
            }
            if (registry == null) {
                throw new OutboxValidationException(
                        "OutboxMetrics.Builder.registry", null, "OutboxMetrics.Builder.registry is missing");
            }
            MetricsSettings settings = MetricsSettings.of(given.values(), given.spelling());
            return new OutboxMetrics(this, settings);
        }
    }
}
