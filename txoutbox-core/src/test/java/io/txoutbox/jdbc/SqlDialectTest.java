package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.OutboxTable;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each dialect names its capabilities and owns every statement of its database: no statement is missing,
 * none leaves a token unrendered, and a statement of a path the database does not take refuses to be
 * asked for, naming what the database lacks.
 */
class SqlDialectTest {
    private static final Pattern TOKEN = Pattern.compile("\\{[a-z_]+}");
    private static final OutboxTable REMAPPED = OutboxTable.of("events.outbox")
            .withColumns(new OutboxTable.Columns("eid", "kind", "entity", "what", "body"));

    /** Every statement a dialect has, by method name. */
    private static List<String> statements() {
        List<String> names = new ArrayList<>();
        for (Method m : SqlDialect.class.getDeclaredMethods()) {
            if (m.getReturnType() == String.class
                    && m.getParameterCount() == 0
                    && !m.getName().equals("name")) {
                names.add(m.getName());
            }
        }
        return names;
    }

    /** The statements of published partitions: their archive tokens are {@link PublishedPartitions}'s. */
    private static final List<String> PARTITION_STATEMENTS = List.of(
            "archiveDdl",
            "markArchiving",
            "statsWithArchive",
            "archivePartitions",
            "addPartition",
            "dropPartition",
            "purgeArchiveDefault");

    private static boolean onlyWhereCapable(String statement) {
        return statement.equals("claimReturning")
                || statement.equals("claimReturningAfter")
                || statement.equals("markDeleting")
                || statement.equals("markRetaining")
                || statement.equals("claimReturningFair")
                || statement.equals("fairClaimsDdl")
                || statement.equals("foreignWriterTrigger");
    }

    @Test
    void every_dialect_renders_every_statement_of_its_paths_for_a_remapped_table_without_tokens_left()
            throws Exception {
        for (Dialect named : Dialect.supported()) {
            SqlDialect d = SqlDialect.of(named);
            assertThat(d.name()).isEqualTo(named.name());
            OutboxSql sql = new OutboxSql(d, REMAPPED, DeadHeadPolicy.BLOCK);
            for (String statement : statements()) {
                Method m = SqlDialect.class.getMethod(statement);
                if (statement.equals("foreignWriterTrigger") || onlyWhereCapable(statement) && !capable(d, statement)) {
                    continue; // the trigger's lock keys are rendered by PgWakeups: the last test
                }
                if (PARTITION_STATEMENTS.contains(statement)) {
                    continue; // rendered with the archive's names: the published partitions test
                }
                String rendered = OutboxSql.withIds(sql.render((String) m.invoke(d)), 2);
                assertThat(TOKEN.matcher(rendered).find())
                        .as("%s %s: %s", d.name(), statement, rendered)
                        .isFalse();
            }
            for (boolean ofType : new boolean[] {false, true}) {
                assertThat(sql.render(d.listDead(DeadHeadPolicy.BLOCK, ofType, true)))
                        .doesNotContainPattern(TOKEN);
            }
        }
    }

    private static boolean capable(SqlDialect d, String statement) {
        return switch (statement) {
            case "claimReturning" -> d.supportsUpdateReturning();
            case "claimReturningAfter" -> d.supportsKeysetClaims();
            case "markDeleting", "markRetaining" -> d.supportsArrayMarks();
            case "claimReturningFair", "fairClaimsDdl" -> d.supportsFairClaims();
            default -> d.supportsListen();
        };
    }

    @Test
    void postgresql_claims_and_marks_in_one_statement_and_listens_the_others_do_not() {
        SqlDialect pg = SqlDialect.of(Dialect.POSTGRESQL);
        assertThat(pg.supportsUpdateReturning()).isTrue();
        assertThat(pg.supportsArrayMarks()).isTrue();
        assertThat(pg.supportsListen()).isTrue();
        for (Dialect other : List.of(Dialect.MARIADB, Dialect.H2)) {
            SqlDialect d = SqlDialect.of(other);
            assertThat(d.supportsUpdateReturning()).as(d.name()).isFalse();
            assertThat(d.supportsArrayMarks()).as(d.name()).isFalse();
            assertThat(d.supportsListen()).as(d.name()).isFalse();
        }
        assertThat(SqlDialect.of(Dialect.MARIADB).storesUuidAsText()).isTrue();
        assertThat(SqlDialect.of(Dialect.MARIADB).storesUtcLocalTimes()).isTrue();
        assertThat(SqlDialect.of(Dialect.H2).inboxInsertIgnoresDuplicates()).isFalse();
    }

    @Test
    void a_statement_of_a_path_the_database_does_not_take_refuses_naming_what_it_lacks() {
        SqlDialect mariadb = SqlDialect.of(Dialect.MARIADB);
        assertThatThrownBy(mariadb::claimReturning)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("txoutbox: the mariadb dialect has no UPDATE … RETURNING");
        assertThatThrownBy(SqlDialect.of(Dialect.H2)::markDeleting)
                .hasMessage("txoutbox: the h2 dialect cannot mark a batch from bound arrays");
        assertThatThrownBy(mariadb::foreignWriterTrigger).hasMessageContaining("has no notifications");
    }

    @Test
    void the_stores_pick_their_path_by_capability() {
        OutboxTable table = OutboxTable.of("outbox");
        Jdbc jdbc = new Jdbc(null, "outbox");
        for (Dialect named : Dialect.supported()) {
            SqlDialect d = SqlDialect.of(named);
            OutboxSql sql = new OutboxSql(d, table, null);
            Binder bind = new Binder(d);
            assertThat(Claims.of(sql, jdbc, bind))
                    .isInstanceOf(
                            d.supportsUpdateReturning() ? OneStatementClaims.class : ShortTransactionClaims.class);
            assertThat(Marks.of(sql, jdbc, bind))
                    .isInstanceOf(d.supportsArrayMarks() ? OneStatementMarks.class : ShortTransactionMarks.class);
        }
    }

    @Test
    void the_ddl_of_a_table_names_it_and_its_columns_and_only_postgresql_has_the_wake_up_trigger() {
        OutboxTable table = OutboxTable.of("events.outbox");
        assertThat(Dialect.H2.outboxDdl(table)).contains("CREATE TABLE IF NOT EXISTS events.outbox (");
        assertThat(Dialect.MARIADB.inboxDdl("inbox")).contains("CREATE TABLE IF NOT EXISTS inbox (");
        assertThat(Dialect.POSTGRESQL.foreignWriterWakeupDdl(table))
                .contains("CREATE CONSTRAINT TRIGGER outbox_wake AFTER INSERT ON events.outbox")
                .doesNotContainPattern(TOKEN);
        assertThatThrownBy(() -> Dialect.H2.foreignWriterWakeupDdl(table))
                .hasMessageContaining("the h2 dialect has none");
    }

    @Test
    void only_postgresql_has_published_partitions_and_their_statements_render_for_a_remapped_table() throws Exception {
        SqlDialect pg = SqlDialect.of(Dialect.POSTGRESQL);
        assertThat(pg.supportsPublishedPartitions()).isTrue();
        OutboxSql sql = new OutboxSql(pg, REMAPPED, null);
        for (String statement : PARTITION_STATEMENTS) {
            String template = (String) SqlDialect.class.getMethod(statement).invoke(pg);
            String rendered = sql.render(PublishedPartitions.template(REMAPPED, template, "outbox_pub_2031050400"))
                    .replace("{lock}", "1, 2")
                    .replace("{from}", "2031-05-04T00:00:00Z")
                    .replace("{to}", "2031-05-05T00:00:00Z");
            assertThat(rendered).as(statement).doesNotContainPattern(TOKEN);
        }
        assertThat(sql.render(PublishedPartitions.template(REMAPPED, pg.markArchiving(), null)))
                .contains("DELETE FROM events.outbox AS t", "INSERT INTO events.outbox_published (eid, seq, kind,")
                .contains("t.lease_owner = ?");
        assertThat(sql.render(PublishedPartitions.template(REMAPPED, pg.statsWithArchive(), null)))
                .as("the stats statement still has the FROM the archive's variant replaces")
                .contains(
                        "UNION ALL SELECT what, status, lease_expires_at, attempts, created_at FROM events.outbox_published");
        for (Dialect other : List.of(Dialect.MARIADB, Dialect.H2)) {
            SqlDialect d = SqlDialect.of(other);
            assertThat(d.supportsPublishedPartitions()).as(d.name()).isFalse();
            assertThatThrownBy(d::markArchiving)
                    .hasMessage("txoutbox: the " + d.name() + " dialect has no declarative partitions");
            assertThatThrownBy(() -> other.publishedPartitionsDdl(REMAPPED))
                    .isInstanceOf(io.txoutbox.OutboxValidationException.class)
                    .hasMessageContaining("Outbox.Builder.publishedPartitions needs PostgreSQL")
                    .hasMessageContaining("the " + d.name() + " dialect");
        }
        try (java.io.InputStream in = SqlDialectTest.class.getResourceAsStream("/" + PublishedPartitions.MIGRATION)) {
            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
                    .as("the migration is the script rendered for the default table")
                    .isEqualTo(Dialect.POSTGRESQL.publishedPartitionsDdl(OutboxTable.of("outbox")));
        }
        assertThat(Dialect.POSTGRESQL.publishedPartitionsDdl(REMAPPED))
                .contains("CREATE TABLE IF NOT EXISTS events.outbox_published (LIKE events.outbox)")
                .contains("CREATE TABLE IF NOT EXISTS events.outbox_pub_default PARTITION OF events.outbox_published")
                .doesNotContainPattern(TOKEN);
    }
}
