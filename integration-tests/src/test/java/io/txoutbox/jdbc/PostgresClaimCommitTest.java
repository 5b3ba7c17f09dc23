package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.Completion;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.spi.Outcome;
import io.txoutbox.test.Sql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL a claim's commit does not wait for its log flush, and the mark's does: counted by the
 * server's own {@code pg_stat_wal.wal_sync}, one claim and one mark of one row at a time. The claim's
 * WAL reaches the disk with the mark that follows it; a claim lost in a crash before that only frees its
 * rows again. The control builds the store with the benchmark's switch that keeps the flush (as the
 * relay did before), so the count can tell the two apart.
 */
class PostgresClaimCommitTest {
    private static final int ROWS = 40;

    private HikariDataSource pool;
    private String table;

    @BeforeEach
    void table() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(LocalPostgres.URL);
        config.setUsername(LocalPostgres.USER);
        config.setMaximumPoolSize(1); // one backend: its own counts are the ones forced out below
        pool = new HikariDataSource(config);
        table = "it_claimcommit_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        Outbox.builder(pool).table(table).createSchemaIfMissing(true).build();
        Sql.execute(
                pool,
                "INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload, available_at)"
                        + " SELECT gen_random_uuid(), 'order', 'o-' || g, 'order.placed', '\\x7b7d'::bytea,"
                        + " now() - interval '1 minute' + g * interval '1 millisecond'"
                        + " FROM generate_series(1, " + ROWS + ") g");
    }

    @AfterEach
    void drop() {
        Sql.execute(pool, "DROP TABLE IF EXISTS " + table);
        pool.close();
    }

    @Test
    void claims_commit_without_a_flush_each_and_marks_with_one() throws SQLException {
        try (OutboxStore store = Outbox.builder(pool).table(table).buildStore()) {
            long before = walSyncs();
            List<ClaimResult> claims = claimOneByOne(store);
            long claimSyncs = walSyncs() - before;
            assertThat(claimSyncs)
                    .as("log flushes of %d claims (the WAL writer flushes in the background now and then)", ROWS)
                    .isLessThan(ROWS / 2);
            before = walSyncs();
            markOneByOne(store, claims);
            assertThat(walSyncs() - before).as("log flushes of %d marks", ROWS).isGreaterThanOrEqualTo(ROWS);
        }
        assertThat(Sql.count(pool, "SELECT count(*) FROM " + table))
                .as("every row marked")
                .isZero();
    }

    @Test
    void the_control_claims_with_a_flush_each() throws SQLException {
        System.setProperty("txoutbox.internal.claim-commit", "flush");
        OutboxStore store;
        try {
            store = Outbox.builder(pool).table(table).buildStore();
        } finally {
            System.clearProperty("txoutbox.internal.claim-commit");
        }
        try (store) {
            long before = walSyncs();
            claimOneByOne(store);
            assertThat(walSyncs() - before).as("log flushes of %d claims", ROWS).isGreaterThanOrEqualTo(ROWS);
        }
    }

    private static List<ClaimResult> claimOneByOne(OutboxStore store) {
        List<ClaimResult> claims = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            ClaimResult claim = store.claim("relay-1", 1, Duration.ofSeconds(30), Instant.now());
            assertThat(claim.size()).as("claim %d", i + 1).isEqualTo(1);
            claims.add(claim);
        }
        return claims;
    }

    private static void markOneByOne(OutboxStore store, List<ClaimResult> claims) {
        for (ClaimResult claim : claims) {
            UUID id = claim.events().get(0).id();
            assertThat(store.complete(
                            "relay-1",
                            List.of(new Completion(id, Outcome.PUBLISHED, null, null)),
                            Instant.now(),
                            false))
                    .containsExactly(id);
        }
    }

    /**
     * @return the server's count of WAL flushes, with this test's one backend's own counts in it: a backend
     *     reports its counts lazily (at most once a second when idle), unless told to at its next idle moment
     */
    private long walSyncs() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("SELECT pg_stat_force_next_flush()");
            try (ResultSet rs = st.executeQuery("SELECT wal_sync FROM pg_stat_wal")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
