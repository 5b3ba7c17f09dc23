package io.txoutbox.inbox;

import io.txoutbox.Dialect;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.jdbc.JdbcBackend;
import java.sql.Connection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The consumer side of at-least-once delivery: records, inside the consumer's own transaction, that an
 * event id has been processed, and tells whether it had been before. Apply the event only when {@link
 * #markProcessed} returns true; both commit or roll back together.
 *
 * <pre>{@code
 * c.setAutoCommit(false);
 * if (inbox.markProcessed(c, event.id())) {
 *     createInvoice(c, event);
 * }
 * c.commit();
 * }</pre>
 */
public interface Inbox {

    /**
     * @param dataSource where the inbox table lives (used by {@link #purgeOlderThan} and the schema
     *     helpers; {@link #markProcessed} uses your connection)
     * @return a builder
     */
    static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Records an event id for this consumer through the caller's connection. Does not commit.
     *
     * @param connection the consumer's transaction
     * @param eventId the event's id
     * @return true the first time this consumer sees the id; false for a duplicate
     */
    boolean markProcessed(Connection connection, UUID eventId);

    /**
     * Deletes the records of this consumer older than {@code age}: keep them longer than any duplicate
     * can arrive (the relay's longest backoff plus its lease).
     *
     * @param age how long to remember processed ids
     * @return how many records were deleted
     */
    int purgeOlderThan(Duration age);

    /** Creates the inbox table if it does not exist. */
    void createSchema();

    /** Builds an {@link Inbox}; the table is checked at {@link #build()}. */
    final class Builder {
        private final DataSource dataSource;
        private String table = "inbox";
        private String consumer = "default";
        private Dialect dialect;
        private InstantSource clock = InstantSource.system();
        private boolean createSchemaIfMissing;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * @param table the inbox table, optionally schema-qualified (default {@code inbox})
         * @return this builder
         */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /**
         * @param consumer the consumer's name: each consumer remembers its own ids (default {@code
         *     default}, at most 255 characters)
         * @return this builder
         */
        public Builder consumer(String consumer) {
            this.consumer = consumer;
            return this;
        }

        /**
         * @param dialect the database's dialect (default: detected)
         * @return this builder
         */
        public Builder dialect(Dialect dialect) {
            this.dialect = dialect;
            return this;
        }

        /**
         * @param clock the clock of processed times (default the system clock)
         * @return this builder
         */
        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param create create the table at {@link #build()} if it does not exist (default false)
         * @return this builder
         */
        public Builder createSchemaIfMissing(boolean create) {
            this.createSchemaIfMissing = create;
            return this;
        }

        /**
         * @return the inbox
         * @throws io.txoutbox.OutboxValidationException naming a setting out of bounds
         * @throws io.txoutbox.OutboxSchemaException when the table is missing
         */
        public Inbox build() {
            if (consumer == null || consumer.isBlank() || consumer.length() > 255) {
                throw new OutboxValidationException(
                        "Inbox.Builder.consumer",
                        "1..255 characters",
                        "Inbox.Builder.consumer '" + consumer + "' must be 1 to 255 characters");
            }
            OutboxTable inboxTable = OutboxTable.of(table);
            if (dataSource == null) {
                throw OutboxValidationException.missing("Inbox.Builder.dataSource");
            }
            Dialect d = dialect != null ? dialect : Dialect.detect(dataSource);
            return JdbcBackend.inbox(dataSource, inboxTable, d, consumer, clock, createSchemaIfMissing);
        }
    }
}
