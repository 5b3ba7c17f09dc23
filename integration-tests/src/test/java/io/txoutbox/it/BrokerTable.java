package io.txoutbox.it;

import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * A "broker" that is a table: a publish inserts the batch in one transaction, and its commit is the
 * broker's confirmation. The table numbers arrivals, so the order in which every relay (in this JVM or
 * another) delivered events can be read back. Optionally refuses a random share of events, as a flaky
 * broker would, before anything is stored.
 */
final class BrokerTable implements Publisher {
    private final DataSource dataSource;
    private final String table;
    private final double failureRate;
    private final SplittableRandom random;
    private final ReentrantLock lock = new ReentrantLock();

    BrokerTable(DataSource dataSource, String table, double failureRate, long seed) {
        this.dataSource = dataSource;
        this.table = table;
        this.failureRate = failureRate;
        this.random = new SplittableRandom(seed);
    }

    /** Binds one event to the parameters of an insert. */
    interface Binder {
        void bind(PreparedStatement ps, ClaimedEvent event) throws SQLException;
    }

    /**
     * A plainer broker table, for the relay processes: one insert per event, each committed on its own.
     *
     * @param insert the insert, with the parameters {@code binder} sets
     * @return {@code PUBLISHED} for every event, once all are stored
     * @throws IllegalStateException when an insert fails
     */
    static List<PublishOutcome> insertEach(
            DataSource dataSource, String insert, List<ClaimedEvent> batch, Binder binder) {
        List<PublishOutcome> outcomes = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(insert)) {
            for (ClaimedEvent event : batch) {
                binder.bind(ps, event);
                ps.executeUpdate();
                outcomes.add(PublishOutcome.PUBLISHED);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return outcomes;
    }

    static void create(DatabaseTest test, TestDatabase db, String table) {
        test.execute("CREATE TABLE " + table + " (" + db.autoKey("recv") + ", event_id varchar(36) NOT NULL,"
                + " aggregate_id varchar(255) NOT NULL, payload varchar(1000) NOT NULL)");
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
        List<ClaimedEvent> accepted = new ArrayList<>();
        lock.lock();
        try {
            for (ClaimedEvent event : batch) {
                if (random.nextDouble() < failureRate) {
                    outcomes.add(PublishOutcome.retry("the broker is flaky today"));
                } else {
                    outcomes.add(PublishOutcome.PUBLISHED);
                    accepted.add(event);
                }
            }
        } finally {
            lock.unlock();
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + table + " (event_id, aggregate_id, payload) VALUES (?, ?, ?)")) {
                for (ClaimedEvent event : accepted) {
                    ps.setString(1, event.id().toString());
                    ps.setString(2, event.aggregateId());
                    ps.setString(3, event.payloadAsString());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
        } catch (SQLException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(outcomes);
    }

    /** @return per aggregate, the payloads in arrival order, duplicates included */
    static Map<String, List<String>> arrivals(DataSource dataSource, String table) throws SQLException {
        Map<String, List<String>> byAggregate = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT aggregate_id, payload FROM " + table + " ORDER BY recv");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byAggregate
                        .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                        .add(rs.getString(2));
            }
        }
        return byAggregate;
    }
}
