package io.txoutbox.jdbc;

import io.txoutbox.Identifiers;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention without bloat (PostgreSQL): the published rows of a table live in an archive table, {@code
 * <table>_published}, partitioned by {@code published_at} into periods of one width, aligned to multiples
 * of the width since 1970-01-01 UTC and named {@code <table>_pub_yyyyMMddHH} after their lower bound (UTC).
 * The mark moves a published row there in the statement that marks it ({@link SqlDialect#markArchiving()});
 * the purge drops every partition whose upper bound is not after the retention's cut-off, deletes the
 * default partition's old rows in small batches, and adds the partitions of the current and the next
 * period. A row of a period without a partition lands in the default partition, so a mark never fails for
 * a missing one. Only where {@link SqlDialect#supportsPublishedPartitions()}.
 */
final class PublishedPartitions {
    private static final Logger log = LoggerFactory.getLogger(PublishedPartitions.class);

    /** The advisory lock class (first key) of partition maintenance: "TXOP". */
    static final int LOCK_CLASS = 0x54584F50;

    /** The optional migration of an existing table, for the default table. */
    static final String MIGRATION =
            "db/migration/txoutbox/postgresql-published-partitions/V5__txoutbox_outbox_published_partitions.sql";

    private static final DateTimeFormatter SUFFIX =
            DateTimeFormatter.ofPattern("yyyyMMddHH", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final OutboxSql sql;
    private final Jdbc jdbc;
    private final Binder bind;
    private final long width;
    private final InstantSource clock;
    private final String archive;

    /**
     * @param sql the table's statements
     * @param jdbc the connections
     * @param bind binds times
     * @param width the width of a period, a whole number of hours
     * @param clock the clock of published times (the outbox's), which says which periods are current
     */
    PublishedPartitions(OutboxSql sql, Jdbc jdbc, Binder bind, Duration width, InstantSource clock) {
        if (!sql.dialect().supportsPublishedPartitions()) {
            throw refused(sql.dialect());
        }
        this.sql = sql;
        this.jdbc = jdbc;
        this.bind = bind;
        this.width = width.toSeconds();
        this.clock = clock;
        this.archive = qualified(sql.table(), archiveName(sql.table()));
    }

    /** @return the refusal of the option on a database that cannot take it */
    static OutboxValidationException refused(SqlDialect dialect) {
        return new OutboxValidationException(
                "Outbox.Builder.publishedPartitions",
                "postgresql",
                "Outbox.Builder.publishedPartitions needs PostgreSQL's declarative partitions; the " + dialect.name()
                        + " dialect keeps published rows in the table (Relay.Builder.retainPublished purges them"
                        + " in small batches)");
    }

    /** @return the archive's DDL for a table, as {@link #MIGRATION} ships it for the default table */
    static String ddl(OutboxTable table, SqlDialect dialect) {
        if (!dialect.supportsPublishedPartitions()) {
            throw refused(dialect);
        }
        return new OutboxSql(dialect, table, null).render(template(table, dialect.archiveDdl(), null));
    }

    /** @return the archive's name, without schema */
    static String archiveName(OutboxTable table) {
        return table.name() + "_published";
    }

    /** @return the statement that marks a batch, moving its published rows into the archive */
    String markSql() {
        return render(sql.dialect().markArchiving(), null);
    }

    /** @return the stats statement counting the archive's rows too */
    String statsTemplate() {
        return template(sql.table(), sql.dialect().statsWithArchive(), null);
    }

    /** Creates the archive, moves the rows retained in the table into it, and adds the current partitions. */
    void createSchema() {
        jdbc.scripts("create schema", ddl(sql.table(), sql.dialect()));
        addAhead(clock.instant());
    }

    /** Checks that the archive exists, is partitioned with a default partition, and has the table's columns. */
    void validateSchema() {
        Set<String> columns = columns(sql.table().name());
        Set<String> archived = columns(archiveName(sql.table()));
        String fix = " Create it with Outbox#createSchema(), Outbox.Builder.createSchemaIfMissing(true), the"
                + " migration " + MIGRATION + " (default table) or the script of"
                + " Dialect.POSTGRESQL.publishedPartitionsDdl (Outbox.Builder.publishedPartitions)";
        if (archived.isEmpty()) {
            throw new OutboxSchemaException(
                    archive,
                    "txoutbox: the outbox is built with publishedPartitions, but its archive table '" + archive
                            + "' does not exist." + fix);
        }
        if (partitions().stream().noneMatch(Partition::isDefault)) {
            throw new OutboxSchemaException(
                    archive,
                    "txoutbox: the archive table '" + archive + "' is not partitioned by published_at with a"
                            + " default partition." + fix);
        }
        columns.removeAll(archived);
        if (!columns.isEmpty()) {
            throw new OutboxSchemaException(
                    archive,
                    "txoutbox: the archive table '" + archive + "' lacks columns of "
                            + sql.table().qualifiedName()
                            + ": " + columns + "; add them to the archive (ALTER TABLE " + archive
                            + " ADD COLUMN ...) as they are in the table");
        }
    }

    /**
     * Drops the partitions wholly older than the cut-off, deletes the default partition's older rows in
     * batches, and adds the partitions of the current and the next period.
     *
     * @return the rows deleted from the default partition plus the catalogue's estimate of the rows of the
     *     dropped partitions
     */
    int purge(Instant olderThan, int batchSize) {
        long purged = 0;
        for (Partition p : partitions()) {
            if (!p.isDefault() && p.upper() != null && !p.upper().isAfter(olderThan)) {
                jdbc.scripts("purge", render(sql.dialect().dropPartition(), p.name()));
                log.debug("txoutbox: dropped partition {} of {} (published before {})", p.name(), archive, p.upper());
                purged += p.rows();
            }
        }
        purged += AdminQueries.purgeInBatches(
                jdbc, bind, render(sql.dialect().purgeArchiveDefault(), null), olderThan, batchSize);
        addAhead(clock.instant());
        return (int) Math.min(Integer.MAX_VALUE, purged);
    }

    /** Adds the partition of now's period and of the next, unless one exists or overlaps it. */
    private void addAhead(Instant now) {
        List<Partition> existing = partitions();
        long first = Math.floorDiv(now.getEpochSecond(), width) * width;
        for (long lower = first; lower <= first + width; lower += width) {
            Instant from = Instant.ofEpochSecond(lower);
            Instant to = Instant.ofEpochSecond(lower + width);
            boolean taken = existing.stream()
                    .anyMatch(p -> !p.isDefault()
                            && p.lower() != null
                            && p.upper() != null
                            && p.lower().isBefore(to)
                            && from.isBefore(p.upper()));
            if (taken) {
                continue;
            }
            String partition = sql.table().name() + "_pub_" + SUFFIX.format(from);
            String script = render(sql.dialect().addPartition(), partition)
                    .replace("{lock}", LOCK_CLASS + ", " + PgWakeups.key(archive))
                    .replace("{from}", from.toString())
                    .replace("{to}", to.toString());
            jdbc.scripts("add partition", script);
        }
    }

    /** One partition of the archive as the catalogue has it; the bounds are null where not times. */
    record Partition(String name, boolean isDefault, Instant lower, Instant upper, long rows) {}

    /** @return the archive's partitions whose names are valid identifiers (others are left alone) */
    List<Partition> partitions() {
        String statement = sql.dialect().archivePartitions();
        return jdbc.autocommit("partitions", c -> {
            List<Partition> found = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                ps.setString(1, archive);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String name = rs.getString("name");
                        try {
                            Identifiers.check("partition", name, Identifiers.MAX_COLUMN);
                        } catch (OutboxValidationException notOurs) {
                            log.warn("txoutbox: partition '{}' of {} is left alone", LogText.escape(name, 80), archive);
                            continue;
                        }
                        found.add(new Partition(
                                name,
                                rs.getBoolean("is_default"),
                                bind.getTime(rs, "lower_bound"),
                                bind.getTime(rs, "upper_bound"),
                                rs.getLong("rows")));
                    }
                }
            }
            return found;
        });
    }

    private Set<String> columns(String table) {
        return jdbc.autocommit("schema check", c -> {
            Set<String> names = new TreeSet<>();
            try (PreparedStatement ps = c.prepareStatement(sql.dialect().columns())) {
                ps.setString(1, sql.table().schema());
                ps.setString(2, table);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        names.add(rs.getString("name").toLowerCase(Locale.ROOT));
                    }
                }
            }
            return names;
        });
    }

    private String render(String template, String partition) {
        return sql.render(template(sql.table(), template, partition));
    }

    /** @return the template with the archive's tokens replaced; the others are {@link OutboxSql}'s */
    static String template(OutboxTable table, String template, String partition) {
        String rendered = template.replace("{archive_default}", qualified(table, table.name() + "_pub_default"))
                .replace("{archive}", qualified(table, archiveName(table)));
        return partition == null ? rendered : rendered.replace("{partition}", qualified(table, partition));
    }

    private static String qualified(OutboxTable table, String name) {
        return table.schema() == null ? name : table.schema() + "." + name;
    }
}
