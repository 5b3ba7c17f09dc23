package io.txoutbox.micrometer;

import io.micrometer.core.instrument.Clock;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stats read shared by every gauge for a refresh interval. The first gauge read after the interval
 * passed queries the table; concurrent readers wait for that one query instead of starting their own.
 * A failed read makes the gauges report NaN (unknown) until a later read succeeds, and is retried no
 * sooner than the interval, so a database outage does not turn every scrape into a query.
 */
final class StatsCache {
    private static final Logger log = LoggerFactory.getLogger(StatsCache.class);

    private final Outbox outbox;
    private final Clock clock;
    private final long refreshNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile OutboxStats current;
    private volatile long readAt;
    private volatile boolean read;
    private boolean failing;

    StatsCache(Outbox outbox, Clock clock, Duration refresh) {
        this.outbox = outbox;
        this.clock = clock;
        this.refreshNanos = refresh.toNanos();
    }

    double read(ToDoubleFunction<OutboxStats> value) {
        OutboxStats stats = stats();
        return stats == null ? Double.NaN : value.applyAsDouble(stats);
    }

    OutboxStats stats() {
        if (fresh()) {
            return current;
        }
        lock.lock();
        try {
            if (!fresh()) {
                refresh();
            }
            return current;
        } finally {
            lock.unlock();
        }
    }

    private boolean fresh() {
        return read && clock.monotonicTime() - readAt < refreshNanos;
    }

    private void refresh() {
        try {
            current = outbox.admin().stats();
            if (failing) {
                log.info("txoutbox: reading the stats of table {} works again", outbox.table());
                failing = false;
            }
        } catch (RuntimeException e) {
            current = null;
            if (!failing) {
                log.warn(
                        "txoutbox: reading the stats of table {} failed; its gauges report NaN: {}",
                        outbox.table(),
                        e.toString());
                failing = true;
            }
        }
        readAt = clock.monotonicTime();
        read = true;
    }
}
