package io.txoutbox;

import io.txoutbox.jdbc.JdbcBackend;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * An outbox's settings, checked: the immutable value an outbox and its store run on. Each setting is
 * declared here once, as a {@link Setting} with its default, its limits and its doc; {@link
 * Outbox.Builder}, the Spring starter's {@code txoutbox.*} properties and the relay server's {@code
 * sources[]} YAML all bind through these descriptors and are checked by {@link #of}, which names a refused
 * setting as the caller spelled it, also when a rule can only be checked once the database is known
 * (the value keeps its spelling for that).
 */
public final class OutboxSettings {
    /** The outbox table. */
    public static final Setting<String> TABLE = Setting.builder("table", String.class)
            .defaultValue(OutboxTable.DEFAULT_NAME)
            .rule(
                    OutboxSettings::isTableName,
                    "be a table name, optionally schema-qualified: lower-case letters, digits and underscores,"
                            + " starting with a letter or underscore, at most " + Identifiers.MAX_TABLE
                            + " characters (a schema " + Identifiers.MAX_COLUMN + ")",
                    "[schema.]table")
            .doc("The outbox table, table or schema.table.")
            .build();

    /** The largest payload accepted at append. */
    public static final Setting<Integer> MAX_PAYLOAD_BYTES = Setting.builder("maxPayloadBytes", Integer.class)
            .defaultValue(1024 * 1024)
            .between(1, 64 * 1024 * 1024)
            .doc("The largest payload accepted at append, in bytes (at most 64 MiB).")
            .build();

    /** Whether the table is created when missing. */
    public static final Setting<Boolean> CREATE_SCHEMA = Setting.builder("createSchemaIfMissing", Boolean.class)
            .key("create-schema")
            .defaultValue(false)
            .doc("Create the table and its indexes at start-up if they are missing (use your migrations in"
                    + " production).")
            .build();

    /** Whether the table's shape is checked. */
    public static final Setting<Boolean> VALIDATE_SCHEMA = Setting.builder("validateSchema", Boolean.class)
            .defaultValue(true)
            .doc("Check the table's shape at start-up.")
            .build();

    /** Whether committed() wakes relays in other processes. */
    public static final Setting<Boolean> NOTIFY_AFTER_COMMIT = Setting.builder("notifyAfterCommit", Boolean.class)
            .defaultValue(true)
            .doc("PostgreSQL: committed() also wakes relays in other processes with one notification, sent on a"
                    + " connection of the outbox's own, never inside a business transaction.")
            .build();

    /** The coalescing window of after-commit notifications. */
    public static final Setting<Duration> NOTIFY_WINDOW = Setting.builder("notifyWindow", Duration.class)
            .defaultValue(Duration.ofMillis(2))
            .notNegativeUpTo(Duration.ofSeconds(1))
            .doc("At most one after-commit notification per table per window, the first at once; widening to"
                    + " 10ms while commits come at one or more per millisecond; 0 sends one per commit.")
            .build();

    /** Whether the table has the trigger that wakes idle relays on rows of other programs. */
    public static final Setting<Boolean> FOREIGN_WRITER_WAKEUPS = Setting.builder("foreignWriterWakeups", Boolean.class)
            .defaultValue(false)
            .doc("PostgreSQL: the schema adds (and the check expects) the trigger that wakes idle relays when"
                    + " programs other than txoutbox insert rows.")
            .build();

    /** Change-data-capture mode. */
    public static final Setting<Boolean> CHANGE_DATA_CAPTURE = Setting.builder("changeDataCapture", Boolean.class)
            .defaultValue(false)
            .doc("The table is read by a change-data-capture connector instead of relays: append inserts each"
                    + " event and deletes it in the same transaction.")
            .build();

    /** The width of the partitions of published rows. */
    public static final Setting<Duration> PUBLISHED_PARTITIONS = Setting.builder("publishedPartitions", Duration.class)
            .optional()
            .defaultText("none (kept in the table)")
            .rule(OutboxSettings::isPartitionWidth, "be a whole number of hours between 1 hour and 31 days", "1..744 h")
            .doc("PostgreSQL: the rows a relay retains live in <table>_published, partitioned by publication time"
                    + " in periods of this width, which the purge drops whole.")
            .build();

    /** Claims fair across tenants or destinations. */
    public static final Setting<ClaimFairness> FAIR_CLAIMS = Setting.builder("fairClaims", ClaimFairness.class)
            .optional()
            .defaultText("none (oldest first)")
            .doc("PostgreSQL: each claim takes the oldest due row of every tenant (or destination) before the"
                    + " second of any; needs the index the schema creation makes.")
            .build();

    /** Ordered mode, with what a dead event does to its aggregate. */
    public static final Setting<DeadHeadPolicy> ORDERED = Setting.builder("ordered", DeadHeadPolicy.class)
            .optional()
            .defaultText("none (unordered)")
            .doc("Publish the events of one aggregate in append order; the policy says what a dead event does to"
                    + " the later events of its aggregate (BLOCK waits for an operator, SKIP goes on).")
            .build();

    /** The settings of an outbox, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(
            TABLE,
            MAX_PAYLOAD_BYTES,
            CREATE_SCHEMA,
            VALIDATE_SCHEMA,
            NOTIFY_AFTER_COMMIT,
            NOTIFY_WINDOW,
            FOREIGN_WRITER_WAKEUPS,
            CHANGE_DATA_CAPTURE,
            PUBLISHED_PARTITIONS,
            FAIR_CLAIMS,
            ORDERED);

    /** The Java spelling: {@code Outbox.Builder.table}. */
    static final Spelling JAVA = Spelling.java("Outbox.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final OutboxTable table;
    private final int maxPayloadBytes;
    private final boolean createSchema;
    private final boolean validateSchema;
    private final boolean notifyAfterCommit;
    private final Duration notifyWindow;
    private final boolean foreignWriterWakeups;
    private final boolean changeDataCapture;
    private final Duration publishedPartitions;
    private final ClaimFairness fairClaims;
    private final DeadHeadPolicy ordered;

    private OutboxSettings(SettingValues v, OutboxTable.Columns columns, Dialect dialect, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.table = OutboxTable.of(v.checked(TABLE, spelling)).withColumns(Objects.requireNonNull(columns, "columns"));
        this.maxPayloadBytes = v.checked(MAX_PAYLOAD_BYTES, spelling);
        this.createSchema = v.checked(CREATE_SCHEMA, spelling);
        this.validateSchema = v.checked(VALIDATE_SCHEMA, spelling);
        this.notifyAfterCommit = v.checked(NOTIFY_AFTER_COMMIT, spelling);
        this.notifyWindow = v.checked(NOTIFY_WINDOW, spelling);
        this.foreignWriterWakeups = v.checked(FOREIGN_WRITER_WAKEUPS, spelling);
        this.changeDataCapture = v.checked(CHANGE_DATA_CAPTURE, spelling);
        this.publishedPartitions = v.checked(PUBLISHED_PARTITIONS, spelling);
        this.fairClaims = v.checked(FAIR_CLAIMS, spelling);
        this.ordered = v.checked(ORDERED, spelling);
        String cdc = spelling.of(CHANGE_DATA_CAPTURE);
        if (changeDataCapture && ordered != null) {
            throw contradiction(ORDERED, cdc, "ordered mode governs what relays claim");
        }
        if (changeDataCapture && fairClaims != null) {
            throw contradiction(FAIR_CLAIMS, cdc, "fair claims govern what relays claim");
        }
        if (changeDataCapture && publishedPartitions != null) {
            throw contradiction(PUBLISHED_PARTITIONS, cdc, "published partitions keep what relays published");
        }
        if (dialect != null && fairClaims != null && !JdbcBackend.supportsFairClaims(dialect)) {
            throw new OutboxValidationException(
                    spelling.of(FAIR_CLAIMS),
                    null,
                    spelling.of(FAIR_CLAIMS) + " is " + fairClaims + ", which the " + dialect.name()
                            + " dialect does not support: a fair claim walks the keys of " + fairClaims.column()
                            + " with a loose index scan (WITH RECURSIVE and LATERAL) and locks the picked rows in"
                            + " the same statement, which only PostgreSQL can do; leave it unset to claim oldest"
                            + " first");
        }
        if (dialect != null && publishedPartitions != null && !JdbcBackend.supportsPublishedPartitions(dialect)) {
            throw new OutboxValidationException(
                    spelling.of(PUBLISHED_PARTITIONS),
                    "postgresql",
                    spelling.of(PUBLISHED_PARTITIONS) + " needs PostgreSQL's declarative partitions; the "
                            + dialect.name() + " dialect keeps published rows in the table (a retaining relay"
                            + " purges them in small batches)");
        }
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param columns the names of the mappable columns
     * @param dialect the database's dialect, or {@code null} while it is not known (the rules that depend
     *     on it are checked again by {@link #withDialect})
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws OutboxValidationException naming, in {@code spelling}, a setting that is out of bounds or
     *     contradicts another
     */
    public static OutboxSettings of(
            SettingValues values, OutboxTable.Columns columns, Dialect dialect, Spelling spelling) {
        return new OutboxSettings(values, columns, dialect, spelling);
    }

    /**
     * @param dialect the database's dialect, now known
     * @return these settings, checked again with the rules that depend on the database, in the same spelling
     * @throws OutboxValidationException naming a setting the database cannot take
     */
    public OutboxSettings withDialect(Dialect dialect) {
        return new OutboxSettings(given, table.columns(), Objects.requireNonNull(dialect, "dialect"), spelling);
    }

    private OutboxValidationException contradiction(Setting<?> setting, String cdc, String why) {
        String field = spelling.of(setting);
        return new OutboxValidationException(
                field,
                null,
                field + " and " + cdc + " contradict each other: " + why + ", and a table in change-data-capture"
                        + " mode has no relay (append deletes every row it inserts)");
    }

    private static boolean isTableName(String name) {
        try {
            OutboxTable.of(name);
            return true;
        } catch (OutboxValidationException e) {
            return false;
        }
    }

    private static boolean isPartitionWidth(Duration width) {
        return width.compareTo(Duration.ofHours(1)) >= 0
                && width.compareTo(Duration.ofDays(31)) <= 0
                && width.toSeconds() % 3_600 == 0
                && width.toNanosPart() == 0;
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return the table, with its column names */
    public OutboxTable table() {
        return table;
    }

    /** @return the largest payload accepted at append */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    /** @return whether the table is created when missing */
    public boolean createSchema() {
        return createSchema;
    }

    /** @return whether the table's shape is checked */
    public boolean validateSchema() {
        return validateSchema;
    }

    /** @return whether committed() wakes relays in other processes */
    public boolean notifyAfterCommit() {
        return notifyAfterCommit;
    }

    /** @return the coalescing window of after-commit notifications */
    public Duration notifyWindow() {
        return notifyWindow;
    }

    /** @return whether the table has the trigger that wakes idle relays on rows of other programs */
    public boolean foreignWriterWakeups() {
        return foreignWriterWakeups;
    }

    /** @return whether the outbox is in change-data-capture mode */
    public boolean changeDataCapture() {
        return changeDataCapture;
    }

    /** @return the width of the partitions of published rows, or {@code null} when they stay in the table */
    public Duration publishedPartitions() {
        return publishedPartitions;
    }

    /** @return the column claims are fair across, or {@code null} to claim oldest first */
    public ClaimFairness fairClaims() {
        return fairClaims;
    }

    /** @return the dead-head policy of ordered mode, or {@code null} when unordered */
    public DeadHeadPolicy ordered() {
        return ordered;
    }

    @Override
    public String toString() {
        return "OutboxSettings[table=" + table + ", ordered=" + ordered + ", changeDataCapture=" + changeDataCapture
                + "]";
    }
}
