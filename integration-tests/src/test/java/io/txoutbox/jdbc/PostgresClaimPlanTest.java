package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxTable;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On a table PostgreSQL never analyzed (a new table, a bulk load, a restored dump) the claims' plans
 * are the due index's, as once it is analyzed: no sequential scan, no sort, no hash. Without the
 * claim's planner settings the same statements plan a sequential scan and a sort there (the control
 * below), which took 0.7 to 1.7 s per claim of an ordered backlog of 100,000 rows. And the settings end
 * with the claim (the planner's, and the claim's commit without a log flush): a pooled connection keeps
 * the server's defaults.
 */
class PostgresClaimPlanTest {
    private static final int BACKLOG = 100_000;
    private static HikariDataSource pool;
    private static String table;

    @BeforeAll
    static void neverAnalyzedBacklog() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(LocalPostgres.URL);
        config.setUsername(LocalPostgres.USER);
        config.setMaximumPoolSize(1); // one connection: what a claim leaves on it, the next borrower sees
        pool = new HikariDataSource(config);
        table = "it_claimplan_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        Outbox.builder(pool).table(table).createSchemaIfMissing(true).build();
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)"); // never analyzed
            st.execute("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload,"
                    + " available_at) SELECT gen_random_uuid(), 'order', 'o-' || (g % 1000), 'order.placed',"
                    + " '\\x7b7d'::bytea, now() - interval '1 hour' + g * interval '1 millisecond'"
                    + " FROM generate_series(1, " + BACKLOG + ") g");
        }
    }

    @AfterAll
    static void drop() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        } finally {
            pool.close();
        }
    }

    @Test
    void the_table_was_never_analyzed() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT last_analyze, last_autoanalyze, reltuples"
                        + " FROM pg_stat_user_tables s JOIN pg_class r ON r.oid = s.relid WHERE s.relname = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getTimestamp(1)).isNull();
                assertThat(rs.getTimestamp(2)).isNull();
                assertThat(rs.getFloat(3))
                        .as("reltuples of a table never analyzed")
                        .isLessThanOrEqualTo(0);
            }
        }
    }

    @Test
    void unordered_claims_from_the_bottom_and_from_the_cursor_walk_the_due_index_without_statistics()
            throws SQLException {
        OutboxSql sql = new OutboxSql(SqlDialect.of(Dialect.POSTGRESQL), OutboxTable.of(table), null);
        for (String claim :
                new String[] {sql.dialect().claimReturning(), sql.dialect().claimReturningAfter()}) {
            boolean after = claim.contains("(o.available_at, o.seq) >=");
            String plan = explain(sql.render(claim), after, true);
            assertThat(plan).contains("Index Scan using " + table + "_due_idx");
            assertIndexOnly(plan);
        }
        String control = explain(sql.render(sql.dialect().claimReturning()), false, false);
        assertThat(control.contains("Seq Scan") || sortsTheTable(control))
                .as("the control: without the settings, the planner guesses without statistics:%n%s", control)
                .isTrue();
    }

    @Test
    void ordered_claims_walk_the_due_and_aggregate_indexes_without_statistics() throws SQLException {
        OutboxSql sql = new OutboxSql(SqlDialect.of(Dialect.POSTGRESQL), OutboxTable.of(table), DeadHeadPolicy.BLOCK);
        String plan = explain(sql.render(sql.dialect().claimReturning()), false, true);
        assertThat(plan).contains("Index Scan using " + table + "_due_idx", table + "_aggregate_idx");
        assertIndexOnly(plan);
    }

    /**
     * The only sort a claim may have is the byte budget's running sum over the few rows it locked (a
     * locking CTE is materialized, so its order is not known to the planner); JIT never.
     */
    private static void assertIndexOnly(String plan) {
        assertThat(plan).doesNotContain("Seq Scan", "Hash", "Bitmap", "JIT");
        assertThat(sortsTheTable(plan)).as(plan).isFalse();
    }

    private static boolean sortsTheTable(String plan) {
        return plan.lines().filter(line -> line.contains("Sort Key:")).anyMatch(line -> !line.trim()
                .equals("Sort Key: due.available_at, due.seq"));
    }

    @Test
    void a_claim_on_the_never_analyzed_backlog_takes_the_oldest_rows_and_leaves_the_connection_as_it_was()
            throws SQLException {
        try (OutboxStore store = Outbox.builder(pool).table(table).buildStore()) {
            assertThat(store.claim("relay-1", 100, Duration.ofSeconds(30), Instant.now())
                            .events())
                    .hasSize(100)
                    .allSatisfy(e -> assertThat(e.aggregateId()).startsWith("o-"));
            assertThat(store.claim("relay-1", 100, Duration.ofSeconds(30), Instant.now())
                            .size())
                    .as("the next claim, from the cursor")
                    .isEqualTo(100);
        }
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT current_setting('enable_seqscan'),"
                        + " current_setting('enable_sort'), current_setting('enable_hashjoin'),"
                        + " current_setting('synchronous_commit')")) {
            rs.next();
            assertThat(rs.getString(1) + rs.getString(2) + rs.getString(3) + rs.getString(4))
                    .isEqualTo("onononon");
        }
    }

    /** @return the plan of a claim statement, with or without the dialect's planner settings */
    private static String explain(String claim, boolean afterCursor, boolean withSettings) throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (withSettings) {
                    try (Statement st = c.createStatement()) {
                        st.execute(SqlDialect.of(Dialect.POSTGRESQL).claimPlanSettings());
                    }
                }
                StringBuilder plan = new StringBuilder();
                try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + claim)) {
                    int i = 1;
                    ps.setInt(i++, 8);
                    ps.setTimestamp(i++, Timestamp.from(Instant.now()));
                    if (afterCursor) {
                        ps.setTimestamp(i++, Timestamp.from(Instant.now().minusSeconds(1800)));
                        ps.setLong(i++, 50_000);
                    }
                    ps.setInt(i++, 100);
                    ps.setLong(i++, Long.MAX_VALUE);
                    ps.setLong(i++, Long.MAX_VALUE);
                    ps.setString(i++, "relay-1");
                    ps.setLong(i, 30_000);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            plan.append(rs.getString(1)).append('\n');
                        }
                    }
                }
                return plan.toString();
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }
}
