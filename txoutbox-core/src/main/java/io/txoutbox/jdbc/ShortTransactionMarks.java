package io.txoutbox.jdbc;

import io.txoutbox.spi.Completion;
import io.txoutbox.spi.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Marks a batch in one short transaction where one statement cannot: lock the rows this owner still
 * holds, then delete (or keep) the published ones with one statement and update the others one by one.
 */
final class ShortTransactionMarks extends Marks {
    private final String lockSql;
    private final String deleteSql;
    private final String retainSql;
    private final String markOneSql;

    ShortTransactionMarks(OutboxSql sql, Jdbc jdbc, Binder bind) {
        super(sql, jdbc, bind);
        this.lockSql = sql.render(sql.dialect().lockOwned());
        this.deleteSql = sql.render(sql.dialect().deletePublished());
        this.retainSql = sql.render(sql.dialect().retainPublished());
        this.markOneSql = sql.render(sql.dialect().markOne());
    }

    @Override
    Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished) {
        return jdbc.transaction("complete", c -> mark(c, owner, completions, now, retainPublished));
    }

    private Set<UUID> mark(Connection c, String owner, List<Completion> completions, Instant now, boolean retain)
            throws SQLException {
        Set<UUID> owned = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(OutboxSql.withIds(lockSql, completions.size()))) {
            int i = 1;
            for (Completion done : completions) {
                bind.setId(ps, i++, done.id());
            }
            ps.setString(i, owner);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    owned.add(bind.getId(rs, "id"));
                }
            }
        }
        List<UUID> published = new ArrayList<>();
        List<Completion> others = new ArrayList<>();
        for (Completion done : completions) {
            if (!owned.contains(done.id())) {
                continue;
            }
            if (done.outcome() == Outcome.PUBLISHED) {
                published.add(done.id());
            } else {
                others.add(done);
            }
        }
        if (!published.isEmpty()) {
            String sql = OutboxSql.withIds(retain ? retainSql : deleteSql, published.size());
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int i = 1;
                if (retain) {
                    bind.setTime(ps, i++, now);
                }
                bind.setIds(ps, i, published);
                ps.executeUpdate();
            }
        }
        if (!others.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(markOneSql)) {
                for (Completion done : others) {
                    ps.setString(1, state(done.outcome()));
                    bind.setTimeOrNull(ps, 2, done.availableAt());
                    ps.setString(3, truncate(done.error()));
                    bind.setId(ps, 4, done.id());
                    ps.executeUpdate();
                }
            }
        }
        return owned;
    }
}
