package io.txoutbox.jdbc;

import io.txoutbox.spi.Completion;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Marks a batch with one statement in autocommit: the completions are bound as four arrays (ids, states,
 * due times, errors), published rows are deleted or kept, the others updated, each only where the owner
 * still holds the lease; the statement returns the ids it marked.
 */
final class OneStatementMarks extends Marks {
    private final String deletingSql;
    private final String retainingSql;
    private final boolean archiving;

    OneStatementMarks(OutboxSql sql, Jdbc jdbc, Binder bind) {
        super(sql, jdbc, bind);
        this.deletingSql = sql.render(sql.dialect().markDeleting());
        this.retainingSql = sql.render(sql.dialect().markRetaining());
        this.archiving = false;
    }

    /**
     * Marks that keep published rows by moving them into an archive table ({@link PublishedPartitions}).
     *
     * @param archivingSql the rendered {@link SqlDialect#markArchiving()}
     */
    OneStatementMarks(OutboxSql sql, Jdbc jdbc, Binder bind, String archivingSql) {
        super(sql, jdbc, bind);
        this.deletingSql = sql.render(sql.dialect().markDeleting());
        this.retainingSql = archivingSql;
        this.archiving = true;
    }

    @Override
    Set<UUID> complete(String owner, List<Completion> completions, Instant now, boolean retainPublished) {
        return jdbc.autocommit("complete", c -> mark(c, owner, completions, now, retainPublished));
    }

    private Set<UUID> mark(Connection c, String owner, List<Completion> completions, Instant now, boolean retain)
            throws SQLException {
        int n = completions.size();
        UUID[] ids = new UUID[n];
        String[] states = new String[n];
        String[] times = new String[n];
        String[] errors = new String[n];
        for (int i = 0; i < n; i++) {
            Completion done = completions.get(i);
            ids[i] = done.id();
            states[i] = state(done.outcome());
            times[i] = done.availableAt() == null ? null : done.availableAt().toString();
            errors[i] = truncate(done.error());
        }
        Set<UUID> marked = new HashSet<>(n * 2);
        try (PreparedStatement ps = c.prepareStatement(retain ? retainingSql : deletingSql)) {
            ps.setArray(1, c.createArrayOf("uuid", ids));
            ps.setArray(2, c.createArrayOf("varchar", states));
            ps.setArray(3, c.createArrayOf("text", times));
            ps.setArray(4, c.createArrayOf("text", errors));
            if (retain && archiving) {
                ps.setString(5, owner);
                ps.setString(6, owner);
                ps.setString(7, now.toString());
            } else if (retain) {
                ps.setString(5, now.toString());
                ps.setString(6, owner);
            } else {
                ps.setString(5, owner);
                ps.setString(6, owner);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    marked.add(bind.getId(rs, "id"));
                }
            }
        }
        return marked;
    }
}
