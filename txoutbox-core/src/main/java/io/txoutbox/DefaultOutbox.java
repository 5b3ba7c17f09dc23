package io.txoutbox;

import io.txoutbox.relay.Relay;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class DefaultOutbox implements Outbox, OutboxAdmin {
    private static final Logger log = LoggerFactory.getLogger(DefaultOutbox.class);
    static final int PURGE_BATCH = 1_000;

    private final DataSource dataSource;
    private final OutboxStore store;
    private final OutboxTable table;
    private final String dialect;
    private final DeadHeadPolicy ordered;
    private final InstantSource clock;
    private final Supplier<EventScope> scope;
    private final int maxPayloadBytes;
    private final AtomicBoolean warnedAutocommit = new AtomicBoolean();

    /**
     * @param dataSource where the table lives
     * @param settings the outbox's settings, checked for its dialect
     * @param store the store of the same settings
     * @param dialect the dialect's name
     * @param clock the clock of append times
     * @param scope supplies what events that do not name them are stamped with
     */
    DefaultOutbox(
            DataSource dataSource,
            OutboxSettings settings,
            OutboxStore store,
            String dialect,
            InstantSource clock,
            Supplier<EventScope> scope) {
        this.dataSource = dataSource;
        this.store = store;
        this.table = settings.table();
        this.dialect = dialect;
        this.ordered = settings.ordered();
        this.clock = clock;
        this.scope = scope;
        this.maxPayloadBytes = settings.maxPayloadBytes();
    }

    @Override
    public OutboxEvent append(Connection connection, OutboxEvent event) {
        return appendAll(connection, List.of(event)).get(0);
    }

    @Override
    public List<OutboxEvent> appendAll(Connection connection, List<OutboxEvent> events) {
        if (connection == null) {
            throw new OutboxValidationException(
                    "connection", null, "connection is missing: append needs the connection of your transaction");
        }
        if (events == null || events.isEmpty()) {
            return List.of();
        }
        EventScope current = scope.get();
        Instant now = clock.instant();
        List<OutboxEvent> stamped = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            OutboxEvent event = events.get(i);
            if (event == null) {
                throw new OutboxValidationException(
                        "events[" + i + "]", null, "events[" + i + "] is null; every appended event is required");
            }
            EventValidator.checkPayload(event, maxPayloadBytes);
            EventValidator.checkDue(event, now);
            if (store.changeDataCapture()) {
                refuseDelay(event, i, now);
            }
            stamped.add(stamp(event, current == null ? EventScope.EMPTY : current));
        }
        requireTransaction(connection);
        store.append(connection, stamped, now);
        return stamped;
    }

    /** A connector publishes at commit: a delay would be silently ignored, so it is refused. */
    private static void refuseDelay(OutboxEvent event, int index, Instant now) {
        boolean delayed = event.delay() != null && !event.delay().isZero();
        if (delayed || (event.availableAt() != null && event.availableAt().isAfter(now))) {
            String field = delayed ? "delay" : "availableAt";
            throw new OutboxValidationException(
                    "OutboxEvent." + field,
                    null,
                    "events[" + index + "] (" + event.id() + ") has OutboxEvent." + field + " set, but the outbox is"
                            + " in change-data-capture mode (Outbox.Builder.changeDataCapture): the connector"
                            + " publishes at commit, so a delayed event cannot be honoured");
        }
    }

    private static OutboxEvent stamp(OutboxEvent event, EventScope s) {
        return event.withDefaultHeader(EventHeaders.CORRELATION_ID, s.correlationId())
                .withDefaultHeader(EventHeaders.CAUSATION_ID, s.causationId())
                .withDefaultHeader(EventHeaders.TRACEPARENT, s.traceparent())
                .withDefaultHeader(EventHeaders.TRACESTATE, s.tracestate())
                .withDefaultTenant(s.tenantId());
    }

    /** Append in autocommit mode commits the event on its own: allowed, but worth a warning (once). */
    private void requireTransaction(Connection connection) {
        try {
            if (connection.getAutoCommit() && warnedAutocommit.compareAndSet(false, true)) {
                log.warn(
                        "txoutbox: append on a connection in autocommit mode commits the event on its own,"
                                + " outside any business transaction (table {})",
                        store.table());
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of("append", store.table(), e);
        }
    }

    @Override
    public void committed() {
        store.signalCommitted();
    }

    @Override
    public <T> T inTransaction(TransactionWork<T> work) {
        T result;
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                result = work.run(c);
                c.commit();
            } catch (Exception | Error e) {
                rollbackQuietly(c, e);
                if (e instanceof RuntimeException re) {
                    throw re;
                }
                if (e instanceof Error err) {
                    throw err;
                }
                throw new OutboxException("txoutbox: the transaction's work failed and was rolled back: " + e, e);
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw OutboxStoreException.of("transaction", store.table(), e);
        }
        committed();
        return result;
    }

    private static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public OutboxAdmin admin() {
        return this;
    }

    @Override
    public void createSchema() {
        store.createSchema();
    }

    @Override
    public Relay.Builder relay(Publisher publisher) {
        return Relay.builder(store, clock, publisher);
    }

    @Override
    public OutboxTable outboxTable() {
        return table;
    }

    @Override
    public WakeupCounters wakeupCounters() {
        return store.wakeupCounters();
    }

    @Override
    public InstantSource clock() {
        return clock;
    }

    @Override
    public OutboxStats stats() {
        return store.stats(clock.instant());
    }

    @Override
    public List<DeadEvent> dead(DeadQuery query) {
        return store.listDead(query);
    }

    @Override
    public int revive(DeadSelector selector) {
        return store.revive(selector, clock.instant());
    }

    @Override
    public int deleteDead(DeadSelector selector) {
        return store.deleteDead(selector);
    }

    @Override
    public int purgePublished(Duration age) {
        if (age == null || age.isNegative()) {
            throw new OutboxValidationException(
                    "age", ">= 0", "purgePublished age is " + age + "; it must be zero or more");
        }
        if (age.compareTo(EventValidator.MAX_DELAY) > 0) {
            // Older than any time the columns hold: the cut-off would leave their range (or Instant's).
            throw new OutboxValidationException(
                    "age",
                    "<= " + EventValidator.MAX_DELAY,
                    "purgePublished age is " + age + "; it must be at most " + EventValidator.MAX_DELAY
                            + " (the span of times every supported database holds, " + EventValidator.TIME_RANGE
                            + ")");
        }
        Instant cutoff = clock.instant().minus(age);
        return store.purgePublished(cutoff, PURGE_BATCH);
    }

    @Override
    public String toString() {
        return "Outbox[table=" + store.table() + ", dialect=" + dialect
                + (ordered == null ? "" : ", ordered " + ordered)
                + (store.changeDataCapture() ? ", change data capture" : "") + "]";
    }
}
