package io.txoutbox.jdbc;

/**
 * What MariaDB, MySQL and H2 share where they differ from {@link PostgresDialect}: {@code SKIP LOCKED},
 * but no {@code UPDATE … RETURNING}, no arrays to bind and no notifications. So a batch is claimed with
 * a short transaction ({@code SELECT … FOR UPDATE SKIP LOCKED}, then {@code UPDATE}) and marked with
 * another (lock the rows still owned, then delete and update); relays of other processes poll; the
 * headers column takes JSON as text.
 */
abstract class ShortTransactionDialect extends PostgresDialect {

    /** Only the table's own script: the PostgreSQL migrations that follow V1 have nothing to do here. */
    @Override
    public final String outboxDdl() {
        return resource(name() + "-outbox.sql");
    }

    @Override
    public final boolean supportsUpdateReturning() {
        return false;
    }

    @Override
    public final boolean supportsArrayMarks() {
        return false;
    }

    @Override
    public final boolean supportsListen() {
        return false;
    }

    @Override
    public final boolean supportsKeysetClaims() {
        return false;
    }

    /** No {@code LATERAL} join that locks (MariaDB has none, H2 none that takes {@code FOR UPDATE}). */
    @Override
    public final boolean supportsFairClaims() {
        return false;
    }

    /** MariaDB and H2 keep statistics of their own (InnoDB samples a table when it opens it): no settings. */
    @Override
    public final String claimPlanSettings() {
        return "";
    }

    /** InnoDB flushes its log at commit by a global setting only, and H2 has none per transaction. */
    @Override
    public final String claimCommitSettings() {
        return "";
    }

    /** Published rows stay in the table: no archive in time partitions. */
    @Override
    public final boolean supportsPublishedPartitions() {
        return false;
    }

    /** The headers column is text: no cast. */
    @Override
    final String headersAsText() {
        return "";
    }

    /** The headers column is text: no cast. */
    @Override
    public String insert() {
        return insertWithTextHeaders();
    }
}
