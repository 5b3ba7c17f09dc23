package io.txoutbox.server.source;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What one route of a source did, and whether its broker is failing. Feeds {@code /metrics} ({@code
 * txoutbox_route_*}, tagged {@code source}, {@code route} and {@code transport}) and the dashboard's
 * routes table, so an operator sees which broker is slow or failing.
 *
 * <p>It also holds the route's breaker: when a call to the route published nothing and took long (the
 * broker did not answer), the route is <em>failing</em> for a while (1 s, doubling up to 30 s): its
 * events are not sent but given back for retry at the end of that while, so that they do not make the
 * other routes' events of the same batches wait for a broker that does not answer. The first call after
 * the while is sent for real; one that publishes ends the failing state.
 */
public final class RouteStats {
    /** Seconds of history for the "recent" figures. */
    public static final int WINDOW = 60;

    private static final Duration FIRST_HOLD = Duration.ofSeconds(1);
    private static final Duration MAX_HOLD = Duration.ofSeconds(30);

    /** The figures of one route for the API. */
    public record Snapshot(
            String name,
            String transport,
            List<String> types,
            String target,
            long published,
            long retried,
            long dead,
            long failures,
            long heldBack,
            boolean failing,
            String lastError,
            double recentPerSecond,
            double recentMeanLatencyMillis,
            double recentMaxLatencyMillis) {}

    private record Second(long published, long calls, long latencyNanos, long maxLatencyNanos) {}

    private final RoutingPublisher.Target route;
    private final Duration slowCall;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Second> window = new ArrayDeque<>();
    private final Counter publishedCounter;
    private final Counter retriedCounter;
    private final Counter deadCounter;
    private final Counter failureCounter;
    private final Counter heldBackCounter;
    private final Timer latency;

    // Guarded by lock.
    private long published;
    private long retried;
    private long dead;
    private long failures;
    private long heldBack;
    private long calls;
    private long latencyNanos;
    private long maxLatencyNanos;
    private long sampledPublished;
    private long sampledCalls;
    private long sampledLatencyNanos;
    private int consecutiveFailures;
    private Instant holdUntil;
    private boolean probing;
    private String lastError;

    /**
     * @param route the route: its name, transport, event types and target (no secrets) are what this reports
     * @param slowCall a call that publishes nothing and takes at least this long makes the route failing
     * @param registry where the meters go, or {@code null} for none
     * @param tags the source's tags
     */
    RouteStats(RoutingPublisher.Target route, Duration slowCall, MeterRegistry registry, Tags tags) {
        this.route = route;
        this.slowCall = slowCall;
        if (registry == null) {
            publishedCounter = retriedCounter = deadCounter = failureCounter = heldBackCounter = null;
            latency = null;
            return;
        }
        Tags t = tags.and("route", route.name(), "transport", route.transport());
        publishedCounter = outcome(registry, t, "published");
        retriedCounter = outcome(registry, t, "retried");
        deadCounter = outcome(registry, t, "dead");
        failureCounter = Counter.builder("txoutbox.route.failures")
                .description("Calls to the route's transport that failed as a whole or timed out")
                .tags(t)
                .register(registry);
        heldBackCounter = Counter.builder("txoutbox.route.held.back")
                .description("Events not sent because the route's broker was failing; retried later")
                .tags(t)
                .register(registry);
        latency = Timer.builder("txoutbox.route.publish.duration")
                .description("From handing a route its part of a batch to the broker's last confirmation")
                .tags(t)
                .register(registry);
        Gauge.builder("txoutbox.route.failing", this, r -> r.failing() ? 1 : 0)
                .description("1 while the route's broker does not answer and its events are held back")
                .tags(t)
                .register(registry);
    }

    private static Counter outcome(MeterRegistry registry, Tags tags, String outcome) {
        return Counter.builder("txoutbox.route.events")
                .description("Events the route's transport reported, by outcome")
                .tags(tags.and("outcome", outcome))
                .register(registry);
    }

    String name() {
        return route.name();
    }

    /**
     * @param now the current time
     * @return {@code null} when the route's part of a batch may be sent; otherwise the time until which
     *     its events are held back
     */
    Instant admit(Instant now) {
        lock.lock();
        try {
            if (holdUntil == null) {
                return null;
            }
            if (now.isBefore(holdUntil)) {
                return holdUntil;
            }
            if (probing) {
                // Another relay's call is finding out whether the broker is back.
                return now.plus(FIRST_HOLD);
            }
            probing = true;
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Counts events held back without being sent. */
    void heldBack(int events) {
        lock.lock();
        try {
            heldBack += events;
            retried += events;
        } finally {
            lock.unlock();
        }
        if (heldBackCounter != null) {
            heldBackCounter.increment(events);
            retriedCounter.increment(events);
        }
    }

    /**
     * Records one call's result.
     *
     * @param ok published events
     * @param retry events to retry
     * @param gone dead events
     * @param failedWhole whether the call failed as a whole (an exception, no answer in time)
     * @param took how long it took
     * @param error why it failed, or the last event's reason, for the dashboard; {@code null} when fine
     * @param now the current time
     */
    void record(int ok, int retry, int gone, boolean failedWhole, long took, String error, Instant now) {
        boolean broken = ok == 0 && (failedWhole || retry > 0) && took >= slowCall.toNanos();
        lock.lock();
        try {
            published += ok;
            retried += retry;
            dead += gone;
            calls++;
            latencyNanos += took;
            maxLatencyNanos = Math.max(maxLatencyNanos, took);
            if (failedWhole) {
                failures++;
            }
            if (error != null) {
                lastError = error;
            }
            probing = false;
            if (broken) {
                consecutiveFailures++;
                long factor = 1L << Math.min(consecutiveFailures - 1, 10);
                Duration hold = FIRST_HOLD.multipliedBy(factor);
                holdUntil = now.plus(hold.compareTo(MAX_HOLD) > 0 ? MAX_HOLD : hold);
            } else if (ok > 0 || (!failedWhole && retry == 0)) {
                consecutiveFailures = 0;
                holdUntil = null;
            }
        } finally {
            lock.unlock();
        }
        if (latency != null) {
            publishedCounter.increment(ok);
            retriedCounter.increment(retry);
            deadCounter.increment(gone);
            if (failedWhole) {
                failureCounter.increment();
            }
            latency.record(took, TimeUnit.NANOSECONDS);
        }
    }

    /** @return whether the route's broker is failing now (its events are held back) */
    boolean failing() {
        lock.lock();
        try {
            return holdUntil != null;
        } finally {
            lock.unlock();
        }
    }

    /** Appends one second to the window: what happened since the previous call. */
    void sample() {
        lock.lock();
        try {
            window.addLast(new Second(
                    published - sampledPublished,
                    calls - sampledCalls,
                    latencyNanos - sampledLatencyNanos,
                    maxLatencyNanos));
            sampledPublished = published;
            sampledCalls = calls;
            sampledLatencyNanos = latencyNanos;
            maxLatencyNanos = 0;
            while (window.size() > WINDOW) {
                window.removeFirst();
            }
        } finally {
            lock.unlock();
        }
    }

    public Snapshot snapshot() {
        lock.lock();
        try {
            long p = 0;
            long c = 0;
            long l = 0;
            long max = 0;
            for (Second s : window) {
                p += s.published();
                c += s.calls();
                l += s.latencyNanos();
                max = Math.max(max, s.maxLatencyNanos());
            }
            double seconds = Math.max(1, window.size());
            return new Snapshot(
                    route.name(),
                    route.transport(),
                    route.types(),
                    route.target(),
                    published,
                    retried,
                    dead,
                    failures,
                    heldBack,
                    holdUntil != null,
                    lastError,
                    p / seconds,
                    c == 0 ? 0 : l / 1e6 / c,
                    max / 1e6);
        } finally {
            lock.unlock();
        }
    }
}
