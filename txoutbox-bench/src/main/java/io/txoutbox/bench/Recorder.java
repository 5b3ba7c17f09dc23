package io.txoutbox.bench;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Counts confirmed events, and for latency runs keeps {@code System.nanoTime()} just after each
 * producer's commit and at each confirmation. Either may come first (a relay can see a row before the
 * producer thread records its commit), so latencies are computed at the end.
 */
class Recorder {
    final LongAdder confirmed = new LongAdder();
    private final boolean timed;
    private final Map<UUID, Long> commits = new ConcurrentHashMap<>();
    private final Map<UUID, Long> confirms = new ConcurrentHashMap<>();

    Recorder(boolean timed) {
        this.timed = timed;
    }

    void committed(UUID id) {
        if (timed) {
            commits.put(id, System.nanoTime());
        }
    }

    void confirm(UUID id) {
        if (timed && id != null) {
            confirms.putIfAbsent(id, System.nanoTime());
        }
    }

    /** A confirmation seen at {@code nanoTime} in another process (the same monotonic clock on Linux). */
    void confirmAt(UUID id, long nanoTime) {
        if (timed && id != null) {
            confirms.putIfAbsent(id, nanoTime);
        }
    }

    void confirmedCount(long n) {
        confirmed.add(n);
    }

    long commits() {
        return commits.size();
    }

    /** @return how many committed events have been confirmed */
    long confirmedOfCommitted() {
        long n = 0;
        for (UUID id : commits.keySet()) {
            if (confirms.containsKey(id)) {
                n++;
            }
        }
        return n;
    }

    /** @return commit-to-confirmation latencies in microseconds */
    Histogram latencies() {
        Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        commits.forEach((id, committedAt) -> {
            Long confirmedAt = confirms.get(id);
            if (confirmedAt != null) {
                long micros = Math.max(1, (confirmedAt - committedAt) / 1_000);
                h.recordValue(Math.min(micros, h.getHighestTrackableValue()));
            }
        });
        return h;
    }
}
