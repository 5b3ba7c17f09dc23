package io.txoutbox.relay;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.RelayListener;
import io.txoutbox.spi.RelayListener.BatchReport;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a relay tells the world: its counters ({@link RelayMetrics}), its log lines about failures, and
 * its {@link RelayListener}. A listener that throws is logged and never disturbs the relay.
 */
final class RelayReporter {
    private static final Logger log = LoggerFactory.getLogger(DefaultRelay.class);

    private final String name;
    private final RelayListener listener;
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong fenced = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    RelayReporter(String name, RelayListener listener) {
        this.name = name;
        this.listener = listener;
    }

    /** A claim found rows. */
    void claimed() {
        batches.incrementAndGet();
    }

    /** Rows whose id could not be read, marked dead by the store at the claim. */
    void quarantined(int rows) {
        dead.addAndGet(rows);
    }

    /**
     * Counts a marked batch: each event by its final outcome unless its mark was fenced off, each
     * unreadable row as dead unless fenced, and the fenced rows.
     */
    void marked(List<ClaimedEvent> events, List<PublishOutcome> finals, Set<UUID> fencedIds, Set<UUID> unreadable) {
        for (int i = 0; i < events.size(); i++) {
            if (fencedIds.contains(events.get(i).id())) {
                continue;
            }
            switch (finals.get(i).outcome()) {
                case PUBLISHED -> published.incrementAndGet();
                case RETRY -> retried.incrementAndGet();
                case DEAD -> dead.incrementAndGet();
            }
        }
        for (UUID id : unreadable) {
            if (!fencedIds.contains(id)) {
                dead.incrementAndGet();
            }
        }
        fenced.addAndGet(fencedIds.size());
    }

    /** Counts, logs and reports a failure the relay survives. */
    void error(String phase, Throwable e) {
        errors.incrementAndGet();
        log.warn("txoutbox: relay '{}' {} failed: {}", name, phase, describe(e));
        try {
            listener.onError(name, phase, e);
        } catch (RuntimeException listenerFailure) {
            log.warn("txoutbox: relay '{}' listener threw from onError", name, listenerFailure);
        }
    }

    /** Hands a batch report to the listener. */
    void batch(BatchReport report) {
        try {
            listener.onBatch(report);
        } catch (RuntimeException e) {
            log.warn("txoutbox: relay '{}' listener threw from onBatch", name, e);
        }
    }

    /** @return the counters now */
    RelayMetrics metrics() {
        return new RelayMetrics(batches.get(), published.get(), retried.get(), dead.get(), fenced.get(), errors.get());
    }

    /** @return a failure as one line: its class and message */
    static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
