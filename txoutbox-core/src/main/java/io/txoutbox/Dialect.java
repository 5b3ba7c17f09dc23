package io.txoutbox;

import io.txoutbox.jdbc.JdbcBackend;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which database an outbox speaks to: {@link #POSTGRESQL}, {@link #MARIADB} (also for MySQL) or {@link
 * #H2}. Each has its own SQL inside txoutbox; this type only names the choice, so that {@link
 * Outbox.Builder#dialect(Dialect)} can be told it instead of {@link #detect(DataSource) detecting} it, and
 * it renders the database's DDL for migrations of your own.
 */
public final class Dialect {
    private static final Logger log = LoggerFactory.getLogger(Dialect.class);

    /** PostgreSQL 14 or later: {@code SKIP LOCKED}, one statement per claim and per mark, notifications. */
    public static final Dialect POSTGRESQL = new Dialect("postgresql");

    /** MariaDB 10.6 or later, and MySQL 8.0.13 or later: {@code SKIP LOCKED}, no notifications. */
    public static final Dialect MARIADB = new Dialect("mariadb");

    /** H2 2.2 or later, for embedded use and fast tests: {@code SKIP LOCKED}, no notifications. */
    public static final Dialect H2 = new Dialect("h2");

    private static final List<Dialect> SUPPORTED = List.of(POSTGRESQL, MARIADB, H2);

    private final String name;

    private Dialect(String name) {
        this.name = name;
    }

    /** @return the dialect's name, as logged and configured: {@code postgresql}, {@code mariadb} or {@code h2} */
    public String name() {
        return name;
    }

    /**
     * Picks the dialect of the database behind a data source, and logs what it picked.
     *
     * @param dataSource the application's data source
     * @return the dialect
     * @throws OutboxException naming the database and the supported ones when it is not supported
     */
    public static Dialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData meta = connection.getMetaData();
            String product = meta.getDatabaseProductName();
            String version = meta.getDatabaseProductVersion();
            Dialect dialect =
                    forProduct(product, version, meta.getDatabaseMajorVersion(), meta.getDatabaseMinorVersion());
            log.info("txoutbox: detected {} {}; using the {} dialect", product, version, dialect.name());
            return dialect;
        } catch (SQLException e) {
            throw OutboxStoreException.of("dialect detection", "-", e);
        }
    }

    static Dialect forProduct(String product, String version, int major, int minor) {
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        String v = version == null ? "" : version.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            require(major >= 14, product, version, "PostgreSQL 14 or later");
            return POSTGRESQL;
        }
        if (p.contains("mariadb") || (p.contains("mysql") && v.contains("mariadb"))) {
            require(major > 10 || (major == 10 && minor >= 6), product, version, "MariaDB 10.6 or later");
            return MARIADB;
        }
        if (p.contains("mysql")) {
            require(major >= 8, product, version, "MySQL 8.0.13 or later");
            return MARIADB;
        }
        if (p.equals("h2")) {
            require(major >= 2, product, version, "H2 2.2 or later");
            return H2;
        }
        throw new OutboxException("txoutbox does not support the database '" + product + " " + version
                + "'; supported: PostgreSQL 14+, MariaDB 10.6+, MySQL 8.0.13+, H2 2.2+ (dialects "
                + SUPPORTED.stream().map(Dialect::name).toList() + ")");
    }

    private static void require(boolean ok, String product, String version, String needed) {
        if (!ok) {
            throw new OutboxException("txoutbox needs " + needed + "; the database is " + product + " " + version);
        }
    }

    /**
     * @param name a dialect name: {@code postgresql}, {@code mariadb} (also for MySQL) or {@code h2}
     * @return the dialect
     * @throws OutboxException naming the supported dialects when the name is unknown
     */
    public static Dialect named(String name) {
        if ("mysql".equalsIgnoreCase(name)) {
            return MARIADB;
        }
        for (Dialect d : SUPPORTED) {
            if (d.name.equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new OutboxException("txoutbox.dialect '" + name + "' is unknown; supported: "
                + SUPPORTED.stream().map(Dialect::name).toList() + " (mysql is an alias of mariadb)");
    }

    /** @return the dialects this version supports */
    public static List<Dialect> supported() {
        return SUPPORTED;
    }

    /**
     * The outbox table's DDL for this database, as {@link Outbox#createSchema()} runs it and the
     * Flyway-style migrations {@code db/migration/txoutbox/<dialect>/} ship it for the default table; needs
     * no database.
     *
     * @param table the table and its column names
     * @return the script: statements separated by a semicolon at the end of a line and a blank line
     */
    public String outboxDdl(OutboxTable table) {
        return JdbcBackend.outboxDdl(this, table);
    }

    /**
     * @param table the inbox table, optionally schema-qualified
     * @return the inbox table's DDL for this database, as {@code Inbox.Builder.createSchemaIfMissing} runs it
     */
    public String inboxDdl(String table) {
        return JdbcBackend.inboxDdl(this, OutboxTable.of(table));
    }

    /**
     * The optional PostgreSQL trigger that wakes idle relays when programs other than txoutbox insert rows
     * (psql, services in other languages): what {@link Outbox#createSchema()} adds when the outbox is built
     * with {@link Outbox.Builder#foreignWriterWakeups(boolean)}, and what {@code
     * db/migration/txoutbox/postgresql-foreign-writers/} ships for the default table. Needs no database.
     *
     * @param table the table and its column names
     * @return the script
     * @throws OutboxException on a database without notifications (every dialect but PostgreSQL)
     */
    public String foreignWriterWakeupDdl(OutboxTable table) {
        return JdbcBackend.foreignWriterWakeupDdl(this, table);
    }

    /**
     * The index that claims fair across a column read ({@link Outbox.Builder#fairClaims(ClaimFairness)}):
     * what {@link Outbox#createSchema()} adds for such an outbox, and one of the two statements {@code
     * db/migration/txoutbox/postgresql-fair-claims/} ships for the default table. Needs no database.
     *
     * @param table the table and its column names
     * @param fairness the column claims are fair across
     * @return the script
     * @throws OutboxValidationException on a database that cannot claim fairly (every dialect but PostgreSQL)
     */
    public String fairClaimsDdl(OutboxTable table, ClaimFairness fairness) {
        return JdbcBackend.fairClaimsDdl(this, table, fairness);
    }

    /**
     * The archive of published rows in time partitions (PostgreSQL), as {@link Outbox#createSchema()}
     * creates it for an outbox built with {@link Outbox.Builder#publishedPartitions(java.time.Duration)}, with the
     * move of the rows retained in the table before; {@code
     * db/migration/txoutbox/postgresql-published-partitions/} ships it for the default table. Needs no
     * database.
     *
     * @param table the table and its column names
     * @return the script
     * @throws OutboxValidationException on every dialect but PostgreSQL
     */
    public String publishedPartitionsDdl(OutboxTable table) {
        return JdbcBackend.publishedPartitionsDdl(this, table);
    }

    @Override
    public String toString() {
        return "Dialect[" + name + "]";
    }
}
