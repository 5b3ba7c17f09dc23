package io.txoutbox;

/**
 * What relays share their claims fairly across ({@link Outbox.Builder#fairClaims(ClaimFairness)}): by
 * default a claim takes the due rows oldest first, so one tenant's backlog of a million events is claimed
 * in front of every other tenant's next event. With fair claims a claim takes the oldest due row of each
 * key first, then the second of each, and so on up to the batch size: a trickle of one key is claimed in
 * the next batch whatever the backlog of another, and a key alone in the table still fills whole batches.
 * A {@code NULL} key is a key of its own.
 *
 * <p>Fair claims read the table through an index on {@code (<column>, available_at, seq)} of the pending
 * rows, which only fair claims need: {@link Outbox#createSchema()} and {@link
 * Outbox.Builder#createSchemaIfMissing} create it, the migration in {@code
 * db/migration/txoutbox/postgresql-fair-claims/} ships both (keep the one you use), and the schema check refuses a table
 * without it. PostgreSQL only: on MariaDB and H2 the outbox refuses the setting at build.
 */
public enum ClaimFairness {
    /** Fair across the {@code tenant_id} column. */
    TENANT("tenant_id"),
    /** Fair across the {@code destination} column (routes that name their destination). */
    DESTINATION("destination");

    private final String column;

    ClaimFairness(String column) {
        this.column = column;
    }

    /** @return the column whose values share the claims */
    public String column() {
        return column;
    }
}
