package io.txoutbox.relay;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStats;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.WakeSubscription;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * An in-memory store for the relay's pure logic (settling, fencing counts, backoff, the loop): rows are
 * claimed in insertion order, marks are recorded, and hooks let a test make a step fail or take over a
 * lease. The real store's behaviour (locking, the database clock) is tested against H2 in the jdbc
 * package and against every database in integration-tests.
 */
final class FakeStore implements OutboxStore {
    /** A pending row: its event and how many attempts were claimed. */
    static final class Row {
        final UUID id;
        final String type;
        final Integer maxAttempts;
        int attempts;
        String owner;
        String state = "pending";
        Instant availableAt = Instant.EPOCH;
        String error;

        Row(UUID id, String type, Integer maxAttempts) {
            this.id = id;
            this.type = type;
            this.maxAttempts = maxAttempts;
        }
    }

    final Map<UUID, Row> rows = new LinkedHashMap<>();
    final List<List<Completion>> marks = new CopyOnWriteArrayList<>();
    final List<Long> claimedBudgets = new CopyOnWriteArrayList<>();
    final List<Duration> extensions = new CopyOnWriteArrayList<>();
    final List<Runnable> subscribers = new CopyOnWriteArrayList<>();
    final AtomicInteger claims = new AtomicInteger();
    final AtomicInteger idles = new AtomicInteger();
    final AtomicInteger busies = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();
    final AtomicInteger closedSubscriptions = new AtomicInteger();
    volatile Optional<Instant> nextDue = Optional.empty();
    final AtomicInteger nextDueQueries = new AtomicInteger();
    /** Claims that fail before any succeeds. */
    final AtomicInteger failingClaims = new AtomicInteger();
    /** Marks that fail before any succeeds. */
    final AtomicInteger failingMarks = new AtomicInteger();
    /** Rows whose lease another relay takes over before the mark. */
    final Set<UUID> takenOver = new HashSet<>();
    /** Runs during a claim, before its rows are picked. */
    volatile Runnable duringClaim = () -> {};
    /** Runs when a lease is extended. */
    volatile Runnable onExtend = () -> {};

    volatile boolean changeDataCapture;

    /** @return the id of a new pending row */
    synchronized UUID add(String type) {
        return add(type, null);
    }

    synchronized UUID add(String type, Integer maxAttempts) {
        UUID id = UUID.randomUUID();
        rows.put(id, new Row(id, type, maxAttempts));
        return id;
    }

    synchronized Row row(UUID id) {
        return rows.get(id);
    }

    /** Wakes the subscribed relays, as a commit in this JVM would. */
    void wake() {
        subscribers.forEach(Runnable::run);
    }

    @Override
    public String table() {
        return "fake";
    }

    @Override
    public boolean changeDataCapture() {
        return changeDataCapture;
    }

    @Override
    public void append(Connection connection, List<OutboxEvent> events, Instant now) {
        throw new UnsupportedOperationException("the relay never appends");
    }

    @Override
    public ClaimResult claim(String owner, int limit, long maxBytes, Duration lease, Instant now) {
        claims.incrementAndGet();
        claimedBudgets.add(maxBytes);
        if (failingClaims.get() > 0 && failingClaims.getAndDecrement() > 0) {
            throw new IllegalStateException("claim refused by the test");
        }
        duringClaim.run();
        List<ClaimedEvent> events = new ArrayList<>();
        synchronized (this) {
            for (Row row : rows.values()) {
                if (events.size() == limit) {
                    break;
                }
                if (row.state.equals("pending") && row.owner == null && !row.availableAt.isAfter(now)) {
                    row.owner = owner;
                    row.attempts++;
                    events.add(event(row));
                }
            }
        }
        return new ClaimResult(events, Map.of());
    }

    private static ClaimedEvent event(Row row) {
        return new ClaimedEvent(
                row.id,
                "order",
                "o-1",
                row.type,
                1,
                "{}".getBytes(StandardCharsets.UTF_8),
                "application/json",
                Map.of(),
                null,
                null,
                Instant.EPOCH,
                row.attempts,
                row.maxAttempts);
    }

    @Override
    public int extendLease(String owner, Collection<UUID> ids, Duration lease) {
        extensions.add(lease);
        onExtend.run();
        return ids.size();
    }

    @Override
    public synchronized Set<UUID> complete(
            String owner, List<Completion> completions, Instant now, boolean retainPublished) {
        if (failingMarks.get() > 0 && failingMarks.getAndDecrement() > 0) {
            throw new IllegalStateException("mark refused by the test");
        }
        marks.add(List.copyOf(completions));
        Set<UUID> marked = new HashSet<>();
        for (Completion done : completions) {
            Row row = rows.get(done.id());
            if (row == null || takenOver.contains(done.id()) || !owner.equals(row.owner)) {
                continue;
            }
            marked.add(done.id());
            row.owner = null;
            row.error = done.error();
            switch (done.outcome()) {
                case PUBLISHED -> row.state = "published";
                case DEAD -> row.state = "dead";
                case RETRY -> row.availableAt = done.availableAt();
            }
        }
        return marked;
    }

    @Override
    public synchronized int releaseLeases(String owner) {
        released.incrementAndGet();
        int n = 0;
        for (Row row : rows.values()) {
            if (owner.equals(row.owner)) {
                row.owner = null;
                row.attempts--;
                n++;
            }
        }
        return n;
    }

    @Override
    public Optional<Instant> nextDueAt() {
        nextDueQueries.incrementAndGet();
        return nextDue;
    }

    @Override
    public OutboxStats stats(Instant now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<DeadEvent> listDead(DeadQuery query) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int revive(DeadSelector selector, Instant now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int deleteDead(DeadSelector selector) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int purgePublished(Instant olderThan, int batchSize) {
        return 0;
    }

    @Override
    public void createSchema() {}

    @Override
    public void validateSchema() {}

    @Override
    public WakeSubscription subscribe(
            Runnable wake, boolean listen, ThreadFactory threadFactory, Consumer<Throwable> onError) {
        subscribers.add(wake);
        return new WakeSubscription() {
            @Override
            public void idle() {
                idles.incrementAndGet();
            }

            @Override
            public void busy() {
                busies.incrementAndGet();
            }

            @Override
            public void close() {
                subscribers.remove(wake);
                closedSubscriptions.incrementAndGet();
            }
        };
    }

    @Override
    public void signalCommitted() {
        wake();
    }
}
