package io.txoutbox.server.source;

import io.txoutbox.internal.admin.AdminJson;
import io.txoutbox.server.config.ServerConfig;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.RelayListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the relays of one source did since the server started: totals and per-type counts of published,
 * retried and dead events, and a per-second history for the dashboard's throughput chart. Fed by the
 * relays' {@link RelayListener}; read by the admin API.
 */
public final class Activity implements RelayListener {
    /** Seconds of history kept for the chart. */
    static final int HISTORY = 120;

    /** Counts of one kind of outcome. */
    public record Counts(long published, long retried, long dead) {}

    /** One second of the history. */
    public record Point(long epochMillis, long published, long retried, long dead) {}

    private final AtomicLong published = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final Map<String, AtomicLong[]> byType = new ConcurrentHashMap<>();
    /** The types with counts of their own: admitted under {@link #admission}, never more than {@code maxTypes}. */
    private final Set<String> ownTypes = ConcurrentHashMap.newKeySet();

    private final ReentrantLock admission = new ReentrantLock();
    private final int maxTypes;
    private final ArrayDeque<Point> history = new ArrayDeque<>();
    private volatile List<RouteStats> routes = List.of();
    private long lastPublished;
    private long lastRetried;
    private long lastDead;

    /** With the default bound of 50 event types. */
    Activity() {
        this(ServerConfig.Limits.DEFAULT.maxEventTypes());
    }

    /**
     * @param maxTypes how many event types get counts of their own: the first ones relayed; later types
     *     are counted under {@link AdminJson#OTHER_TYPE}, so memory and the stats answer stay bounded
     */
    Activity(int maxTypes) {
        this.maxTypes = maxTypes;
    }

    @Override
    public void onBatch(BatchReport report) {
        List<ClaimedEvent> events = report.events();
        for (int i = 0; i < events.size(); i++) {
            ClaimedEvent e = events.get(i);
            if (report.fenced().contains(e.id())) {
                continue;
            }
            Outcome o = report.outcomes().get(i).outcome();
            int slot = o == Outcome.PUBLISHED ? 0 : o == Outcome.RETRY ? 1 : 2;
            (slot == 0 ? published : slot == 1 ? retried : dead).incrementAndGet();
            byType
                    .computeIfAbsent(label(e.eventType()), k ->
                            new AtomicLong[] {new AtomicLong(), new AtomicLong(), new AtomicLong()})[slot]
                    .incrementAndGet();
        }
    }

    @Override
    public void onError(String relay, String phase, Throwable error) {
        errors.incrementAndGet();
    }

    /** The type itself while fewer than {@code maxTypes} have counts (or it has some), else the other row. */
    private String label(String type) {
        if (ownTypes.contains(type)) {
            return type;
        }
        if (ownTypes.size() >= maxTypes) {
            return AdminJson.OTHER_TYPE; // the set never shrinks: once full, no lock for the other types
        }
        // Batches end on several threads at once (two in flight by default): admitting a type must not be a
        // check-then-act, or two threads that both saw room for one type would both add theirs.
        admission.lock();
        try {
            if (ownTypes.contains(type) || ownTypes.size() < maxTypes && ownTypes.add(type)) {
                return type;
            }
        } finally {
            admission.unlock();
        }
        return AdminJson.OTHER_TYPE;
    }

    /** @param routes the source's routes, whose recent figures {@link #sample} rolls too */
    void track(List<RouteStats> routes) {
        this.routes = List.copyOf(routes);
    }

    /** Appends one point to the history: what happened since the previous call. */
    public synchronized void sample(long epochMillis) {
        for (RouteStats r : routes) {
            r.sample();
        }
        long p = published.get();
        long r = retried.get();
        long d = dead.get();
        history.addLast(new Point(epochMillis, p - lastPublished, r - lastRetried, d - lastDead));
        lastPublished = p;
        lastRetried = r;
        lastDead = d;
        while (history.size() > HISTORY) {
            history.removeFirst();
        }
    }

    public synchronized List<Point> history() {
        return new ArrayList<>(history);
    }

    public Counts totals() {
        return new Counts(published.get(), retried.get(), dead.get());
    }

    public long errors() {
        return errors.get();
    }

    /** @return per event type, sorted by type */
    public Map<String, Counts> byType() {
        Map<String, Counts> out = new TreeMap<>();
        byType.forEach((type, c) -> out.put(type, new Counts(c[0].get(), c[1].get(), c[2].get())));
        return out;
    }

    /** Calls several listeners; one that throws does not stop the others. */
    static RelayListener both(RelayListener a, RelayListener b) {
        return new RelayListener() {
            @Override
            public void onBatch(BatchReport report) {
                try {
                    a.onBatch(report);
                } finally {
                    b.onBatch(report);
                }
            }

            @Override
            public void onError(String relay, String phase, Throwable error) {
                try {
                    a.onError(relay, phase, error);
                } finally {
                    b.onError(relay, phase, error);
                }
            }
        };
    }
}
