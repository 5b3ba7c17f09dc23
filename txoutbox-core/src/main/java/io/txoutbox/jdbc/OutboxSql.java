package io.txoutbox.jdbc;

import io.txoutbox.ClaimFairness;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.OutboxTable;

/**
 * Renders one dialect's statement templates for one table: the tokens {@link SqlDialect} lists become
 * the table's validated identifiers, the database clock and, in ordered mode, the head filter. The
 * renderer never sees a value: values are always bound.
 */
final class OutboxSql {
    private final SqlDialect dialect;
    private final OutboxTable table;
    private final String head;
    private final DeadHeadPolicy ordered;
    private final ClaimFairness fair;

    /**
     * @param dialect the database's statements
     * @param table the table and its column names
     * @param ordered the dead-head policy of ordered mode, or {@code null} for unordered
     */
    OutboxSql(SqlDialect dialect, OutboxTable table, DeadHeadPolicy ordered) {
        this(dialect, table, ordered, null);
    }

    /**
     * @param dialect the database's statements
     * @param table the table and its column names
     * @param ordered the dead-head policy of ordered mode, or {@code null} for unordered
     * @param fair the column claims are fair across, or {@code null} to claim oldest first
     */
    OutboxSql(SqlDialect dialect, OutboxTable table, DeadHeadPolicy ordered, ClaimFairness fair) {
        this.dialect = dialect;
        this.table = table;
        this.head = dialect.headFilter(ordered);
        this.ordered = ordered;
        this.fair = fair;
    }

    /** @return the column claims are fair across, or {@code null} when they take the oldest rows first */
    ClaimFairness fair() {
        return fair;
    }

    /** @return whether claims keep each aggregate's order (only heads are due) */
    boolean ordered() {
        return ordered != null;
    }

    /** @return the dead-head policy of ordered mode, or {@code null} for unordered */
    DeadHeadPolicy deadHeadPolicy() {
        return ordered;
    }

    /** @return the dialect whose templates this renders */
    SqlDialect dialect() {
        return dialect;
    }

    /** @return the table and its column names */
    OutboxTable table() {
        return table;
    }

    /**
     * @param template a template of the dialect
     * @return the statement for this table; {@code {ids}} is left for {@link #withIds}
     */
    String render(String template) {
        OutboxTable.Columns c = table.columns();
        return template.replace("{head}", head)
                .replace("{fair_key}", fair == null ? "tenant_id" : fair.column())
                .replace("{lease_expiry}", dialect.leaseExpiry())
                .replace("{now}", dialect.now())
                .replace("{table}", table.qualifiedName())
                .replace("{name}", table.name())
                .replace("{channel}", table.channel())
                .replace("{id}", c.id())
                .replace("{aggregate_type}", c.aggregateType())
                .replace("{aggregate_id}", c.aggregateId())
                .replace("{event_type}", c.eventType())
                .replace("{payload}", c.payload());
    }

    /**
     * @param rendered a rendered statement with {@code {ids}}
     * @param n how many ids it binds
     * @return the statement with {@code n} placeholders
     */
    static String withIds(String rendered, int n) {
        return rendered.replace("{ids}", placeholders(n));
    }

    /** @return {@code ?, ?, …}, {@code n} times */
    static String placeholders(int n) {
        StringBuilder sb = new StringBuilder(n * 3);
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "?" : ", ?");
        }
        return sb.toString();
    }
}
