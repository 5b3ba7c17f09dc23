package io.txoutbox.jdbc;

import io.txoutbox.DeadEvent;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.DeadQuery;
import io.txoutbox.DeadSelector;
import io.txoutbox.OutboxStats;
import io.txoutbox.OutboxStats.TypeStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations of a table: stats, the dead listing, revive, delete and purge. Each is one short
 * statement in autocommit (purge: a few, each deleting a small batch); none changes pending events.
 */
final class AdminQueries {
    private static final Logger log = LoggerFactory.getLogger(AdminQueries.class);

    private final OutboxSql sql;
    private final Jdbc jdbc;
    private final Binder bind;
    private final DeadHeadPolicy ordered;
    private final boolean changeDataCapture;
    private final String statsSql;
    private final String blockedAggregatesSql;
    private final String blockedEventsSql;
    private final String purgeSql;

    /** @param statsTemplate the stats statement: {@link SqlDialect#stats()}, or one that counts an archive too */
    AdminQueries(OutboxSql sql, Jdbc jdbc, Binder bind, boolean changeDataCapture, String statsTemplate) {
        this.sql = sql;
        this.jdbc = jdbc;
        this.bind = bind;
        this.ordered = sql.deadHeadPolicy();
        this.changeDataCapture = changeDataCapture;
        SqlDialect d = sql.dialect();
        this.statsSql = sql.render(statsTemplate);
        this.blockedAggregatesSql = sql.render(d.blockedAggregates());
        this.blockedEventsSql = sql.render(d.blockedEvents());
        this.purgeSql = sql.render(d.purge());
    }

    /** See {@link io.txoutbox.spi.OutboxStore#stats}. */
    OutboxStats stats(Instant now) {
        return jdbc.autocommit("stats", c -> {
            long pending = 0;
            long inFlight = 0;
            long retrying = 0;
            long dead = 0;
            long published = 0;
            Instant oldest = null;
            Map<String, TypeStats> byType = new TreeMap<>();
            try (PreparedStatement ps = c.prepareStatement(statsSql);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    TypeStats t = new TypeStats(
                            rs.getLong("pending"),
                            rs.getLong("in_flight"),
                            rs.getLong("retrying"),
                            rs.getLong("dead"),
                            rs.getLong("published"));
                    byType.put(rs.getString("event_type"), t);
                    pending += t.pending();
                    inFlight += t.inFlight();
                    retrying += t.retrying();
                    dead += t.dead();
                    published += t.published();
                    Instant typeOldest = bind.getTime(rs, "oldest");
                    if (typeOldest != null && (oldest == null || typeOldest.isBefore(oldest))) {
                        oldest = typeOldest;
                    }
                }
            }
            long blockedAggregates = 0;
            long blockedEvents = 0;
            if (ordered == DeadHeadPolicy.BLOCK && dead > 0) {
                blockedAggregates = count(c, blockedAggregatesSql);
                blockedEvents = count(c, blockedEventsSql);
            }
            Duration age = oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
            return new OutboxStats(
                    pending,
                    inFlight,
                    retrying,
                    dead,
                    published,
                    age,
                    byType,
                    blockedAggregates,
                    blockedEvents,
                    changeDataCapture);
        });
    }

    private static long count(Connection c, String statement) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong("n");
        }
    }

    /** See {@link io.txoutbox.spi.OutboxStore#listDead}. */
    List<DeadEvent> listDead(DeadQuery query) {
        String statement =
                sql.render(sql.dialect().listDead(ordered, query.eventType() != null, query.after() != null));
        return jdbc.autocommit("list dead", c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                int i = 1;
                if (query.eventType() != null) {
                    ps.setString(i++, query.eventType());
                }
                if (query.after() != null) {
                    bind.setId(ps, i++, query.after());
                }
                ps.setInt(i, query.limit());
                List<DeadEvent> page = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID id;
                        try {
                            id = bind.getId(rs, "id");
                        } catch (IllegalArgumentException notAUuid) {
                            // A row quarantined by its raw key: counted in stats, deletable by type.
                            log.warn(
                                    "txoutbox: dead row with {} '{}' on table {} is not listed: its id is not a UUID",
                                    sql.table().columns().id(),
                                    LogText.escape(rs.getString("id"), 80),
                                    sql.table().qualifiedName());
                            continue;
                        }
                        page.add(new DeadEvent(
                                id,
                                rs.getString("aggregate_type"),
                                rs.getString("aggregate_id"),
                                rs.getString("event_type"),
                                rs.getInt("event_version"),
                                rs.getString("tenant_id"),
                                rs.getInt("attempts"),
                                rs.getString("last_error"),
                                bind.getTime(rs, "created_at"),
                                rs.getLong("held_back")));
                    }
                }
                return page;
            }
        });
    }

    /** See {@link io.txoutbox.spi.OutboxStore#revive}; the store wakes relays when any was revived. */
    int revive(DeadSelector selector, Instant now) {
        String statement = sql.render(sql.dialect().revive()) + selection(selector);
        return jdbc.autocommit("revive", c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                bind.setTime(ps, 1, now);
                bindSelection(ps, 2, selector);
                return ps.executeUpdate();
            }
        });
    }

    /** See {@link io.txoutbox.spi.OutboxStore#deleteDead}. */
    int deleteDead(DeadSelector selector) {
        String statement = sql.render(sql.dialect().deleteDead()) + selection(selector);
        return jdbc.autocommit("delete dead", c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                bindSelection(ps, 1, selector);
                return ps.executeUpdate();
            }
        });
    }

    private String selection(DeadSelector selector) {
        StringBuilder filter = new StringBuilder();
        if (selector.ids() != null) {
            filter.append(
                    selector.ids().isEmpty()
                            ? " AND 1 = 0"
                            : OutboxSql.withIds(
                                    sql.render(sql.dialect().selectIds()),
                                    selector.ids().size()));
        }
        if (selector.eventType() != null) {
            filter.append(sql.render(sql.dialect().selectType()));
        }
        return filter.toString();
    }

    private void bindSelection(PreparedStatement ps, int first, DeadSelector selector) throws SQLException {
        int i = first;
        if (selector.ids() != null) {
            i = bind.setIds(ps, i, selector.ids());
        }
        if (selector.eventType() != null) {
            ps.setString(i, selector.eventType());
        }
    }

    /** See {@link io.txoutbox.spi.OutboxStore#purgePublished}. */
    int purgePublished(Instant olderThan, int batchSize) {
        return purgeInBatches(jdbc, bind, purgeSql, olderThan, batchSize);
    }

    /**
     * Runs a purge statement (parameters: the cut-off, the batch size) in autocommit until it deletes
     * fewer rows than a batch, so no transaction holds many row locks or much WAL.
     *
     * @return the rows deleted in all
     */
    static int purgeInBatches(Jdbc jdbc, Binder bind, String purgeSql, Instant olderThan, int batchSize) {
        int total = 0;
        while (true) {
            int deleted = jdbc.autocommit("purge", c -> {
                try (PreparedStatement ps = c.prepareStatement(purgeSql)) {
                    bind.setTime(ps, 1, olderThan);
                    ps.setInt(2, batchSize);
                    return ps.executeUpdate();
                }
            });
            total += deleted;
            if (deleted < batchSize) {
                return total;
            }
        }
    }
}
