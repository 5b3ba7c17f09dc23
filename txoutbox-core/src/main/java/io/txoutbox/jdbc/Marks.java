package io.txoutbox.jdbc;

import io.txoutbox.spi.Completion;
import io.txoutbox.spi.Outcome;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What becomes of a claimed batch's rows: the mark after the publish, fenced by the lease owner so that a
 * relay whose lease passed to another cannot overwrite its work; and the lease extended while the batch
 * is in flight, or returned at stop. Two strategies for the mark, chosen by the dialect's capability:
 * {@link OneStatementMarks} from bound arrays, {@link ShortTransactionMarks} elsewhere.
 */
abstract class Marks {
    /** Longest error text kept in {@code last_error}. */
    static final int MAX_ERROR_CHARS = 4_000;

    final Jdbc jdbc;
    final Binder bind;
    private final String extendSql;
    private final String releaseSql;

    Marks(OutboxSql sql, Jdbc jdbc, Binder bind) {
        this.jdbc = jdbc;
        this.bind = bind;
        this.extendSql = sql.render(sql.dialect().extendLease());
        this.releaseSql = sql.render(sql.dialect().releaseLeases());
    }

    /** @return the strategy the dialect's capabilities allow */
    static Marks of(OutboxSql sql, Jdbc jdbc, Binder bind) {
        return sql.dialect().supportsArrayMarks()
                ? new OneStatementMarks(sql, jdbc, bind)
                : new ShortTransactionMarks(sql, jdbc, bind);
    }

    /** See {@link io.txoutbox.spi.OutboxStore#complete}: never called with an empty batch. */
    abstract Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished);

    /** See {@link io.txoutbox.spi.OutboxStore#extendLease}. */
    final int extendLease(String owner, Collection<UUID> ids, Duration lease) {
        if (ids.isEmpty()) {
            return 0;
        }
        String sql = OutboxSql.withIds(extendSql, ids.size());
        return jdbc.autocommit("extend lease", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, lease.toMillis());
                ps.setString(2, owner);
                bind.setIds(ps, 3, ids);
                return ps.executeUpdate();
            }
        });
    }

    /** See {@link io.txoutbox.spi.OutboxStore#releaseLeases}. */
    final int releaseLeases(String owner) {
        return jdbc.autocommit("release leases", c -> {
            try (PreparedStatement ps = c.prepareStatement(releaseSql)) {
                ps.setString(1, owner);
                return ps.executeUpdate();
            }
        });
    }

    /** @return the row state an outcome leads to */
    static String state(Outcome outcome) {
        return switch (outcome) {
            case PUBLISHED -> "published";
            case RETRY -> "pending";
            case DEAD -> "dead";
        };
    }

    /** @return the error cut to what {@code last_error} keeps */
    static String truncate(String error) {
        if (error == null || error.length() <= MAX_ERROR_CHARS) {
            return error;
        }
        return error.substring(0, MAX_ERROR_CHARS - 1) + "…";
    }
}
