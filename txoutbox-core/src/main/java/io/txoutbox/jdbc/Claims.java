package io.txoutbox.jdbc;

import io.txoutbox.OutboxStoreException;
import io.txoutbox.spi.ClaimResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's claim: due rows within a row limit and a byte budget, leased to an owner on the database
 * clock, read and committed at once. Two strategies, chosen by the dialect's capability: {@link
 * OneStatementClaims} where the database has {@code UPDATE … RETURNING}, {@link ShortTransactionClaims}
 * elsewhere. Both read the rows with {@link ClaimedRows}.
 */
abstract class Claims implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Claims.class);

    final Jdbc jdbc;
    final Binder bind;
    final ClaimedRows rows;
    private final String nextDueSql;
    private final String readSql;
    private final String table;

    Claims(OutboxSql sql, Jdbc jdbc, Binder bind) {
        this.jdbc = jdbc;
        this.bind = bind;
        this.rows = new ClaimedRows(sql, bind);
        this.nextDueSql =
                sql.dialect().claimPlanSettings() + sql.render(sql.dialect().nextDue());
        this.readSql = sql.render(sql.dialect().claimRead());
        this.table = sql.table().name();
    }

    /** @return the strategy the dialect's capabilities allow */
    static Claims of(OutboxSql sql, Jdbc jdbc, Binder bind) {
        return sql.dialect().supportsUpdateReturning()
                ? new OneStatementClaims(sql, jdbc, bind)
                : new ShortTransactionClaims(sql, jdbc, bind);
    }

    /** See {@link io.txoutbox.spi.OutboxStore#claim(String, int, long, int, Duration, Instant)}. */
    final ClaimResult claim(String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes is " + maxBytes + "; it must be 1 or more");
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts is " + maxAttempts + "; it must be 1 or more");
        }
        return claimWithin(owner, limit, maxBytes, maxAttempts, lease, now);
    }

    /**
     * @param maxAttempts the attempt budget of rows without one of their own: a row whose attempts reached
     *     its budget is leased, not counted again and not read, and goes dead with the reason
     */
    abstract ClaimResult claimWithin(
            String owner, int limit, long maxBytes, int maxAttempts, Duration lease, Instant now);

    /**
     * Reads rows larger than the byte budget one by one, after their claim committed, so that a row too
     * large to read in this heap fails alone and no other row waits for it. Such a row keeps its counted
     * attempt and its lease: it comes back when the lease expires, and once its attempt budget is spent the
     * claim moves it to dead without reading it.
     *
     * @param ids the ids of the rows, leased to the owner
     */
    final ClaimResult readAlone(List<Object> ids, String owner) {
        if (ids.isEmpty()) {
            return ClaimResult.EMPTY;
        }
        List<ClaimedRows.Row> read = new ArrayList<>(ids.size());
        for (Object id : ids) {
            try {
                read.addAll(jdbc.autocommit("claim read", c -> {
                    try (PreparedStatement ps = c.prepareStatement(OutboxSql.withIds(readSql, 1))) {
                        ps.setObject(1, id);
                        try (ResultSet rs = ps.executeQuery()) {
                            return rows.read(rs);
                        }
                    }
                }));
            } catch (RuntimeException | OutOfMemoryError failed) {
                // Caught for this row only: what it allocated is garbage now, and the relay carries on.
                log.warn(
                        "txoutbox: a claimed row of table '{}' could not be read alone ({}); its attempt is counted"
                                + " and it comes back when its lease expires, dead once its attempt budget is spent",
                        table,
                        describe(failed));
            }
        }
        return jdbc.autocommit("claim", c -> rows.settle(c, read, owner));
    }

    private static String describe(Throwable failed) {
        if (failed instanceof OutboxStoreException store) {
            return store.getMessage();
        }
        return failed.getClass().getSimpleName()
                + (failed.getMessage() == null ? "" : ": " + LogText.escape(failed.getMessage(), 200));
    }

    /** Forgets what the claims keep of a relay that stopped (see {@link #claim}). */
    void forget(String owner) {}

    /**
     * Connects the claims to the rest of the store, for the claims that run beside a relay's own ({@link
     * Rescans}).
     *
     * @param wake wakes this store's relays in this JVM
     * @param release returns every lease of a relay
     */
    void connect(Runnable wake, Consumer<String> release) {}

    /** Stops what the claims run on threads of their own. */
    @Override
    public void close() {}

    /**
     * Where a transaction that committed has its rows: the lowest {@code available_at} of them. Claims
     * that start behind their last one use it (see {@link ClaimCursor}); others, which always start at the
     * bottom, need not. Never blocks, never throws.
     *
     * @param availableAt the time
     */
    void hint(Instant availableAt) {}

    /**
     * @param owner a relay that returns its leases
     * @return a time at or below every row it holds a lease on (as far as the claims know), or {@code null}
     */
    Instant floorOf(String owner) {
        return null;
    }

    /**
     * Executes a statement that may start with the dialect's planner settings.
     *
     * @return the result set of its query, after the results of any statements before it
     */
    static ResultSet query(PreparedStatement ps) throws SQLException {
        boolean isQuery = ps.execute();
        while (!isQuery) {
            if (ps.getUpdateCount() == -1) {
                throw new SQLException("txoutbox: the claim statement returned no rows");
            }
            isQuery = ps.getMoreResults();
        }
        return ps.getResultSet();
    }

    /** @return the earliest due time of pending rows no one leases (in ordered mode: of heads) */
    final Optional<Instant> nextDueAt() {
        return jdbc.autocommit("next due", c -> {
            try (PreparedStatement ps = c.prepareStatement(nextDueSql);
                    ResultSet rs = query(ps)) {
                rs.next();
                return Optional.ofNullable(bind.getTime(rs, "due"));
            }
        });
    }
}
