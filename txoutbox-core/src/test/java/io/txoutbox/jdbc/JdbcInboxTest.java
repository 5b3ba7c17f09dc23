package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.Dialect;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.inbox.Inbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The inbox on an in-memory H2: a duplicate is recognised in the consumer's own transaction. */
class JdbcInboxTest {
    private final H2Database h2 = new H2Database();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2030-01-01T00:00:00Z"));

    @AfterEach
    void drop() {
        h2.drop();
    }

    private Inbox inbox(String consumer) {
        return Inbox.builder(h2.dataSource)
                .dialect(Dialect.H2)
                .consumer(consumer)
                .clock(now::get)
                .createSchemaIfMissing(true)
                .build();
    }

    private boolean mark(Inbox inbox, UUID id, boolean commit) throws SQLException {
        try (Connection c = h2.dataSource.getConnection()) {
            c.setAutoCommit(false);
            boolean first = inbox.markProcessed(c, id);
            if (commit) {
                c.commit();
            } else {
                c.rollback();
            }
            return first;
        }
    }

    @Test
    void an_event_is_processed_once_per_consumer_and_a_rolled_back_mark_does_not_count() throws SQLException {
        Inbox billing = inbox("billing");
        Inbox email = inbox("email");
        UUID id = UUID.randomUUID();
        assertThat(mark(billing, id, false)).isTrue();
        assertThat(mark(billing, id, true))
                .as("the rolled back mark left nothing")
                .isTrue();
        assertThat(mark(billing, id, true)).as("a duplicate").isFalse();
        assertThat(mark(email, id, true)).as("another consumer's own").isTrue();
    }

    @Test
    void the_purge_forgets_only_this_consumers_old_ids() throws SQLException {
        Inbox billing = inbox("billing");
        Inbox email = inbox("email");
        mark(billing, UUID.randomUUID(), true);
        mark(email, UUID.randomUUID(), true);
        now.set(now.get().plus(Duration.ofDays(8)));
        mark(billing, UUID.randomUUID(), true);
        assertThat(billing.purgeOlderThan(Duration.ofDays(7))).isEqualTo(1);
        assertThat(h2.count("SELECT count(*) FROM inbox")).isEqualTo(2);
    }

    @Test
    void a_missing_id_is_refused_and_a_missing_table_fails_the_build_naming_the_migration() throws SQLException {
        Inbox inbox = inbox("billing");
        try (Connection c = h2.dataSource.getConnection()) {
            assertThatThrownBy(() -> inbox.markProcessed(c, null))
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessage("Inbox.markProcessed eventId is missing; it is required");
        }
        assertThatThrownBy(() -> Inbox.builder(h2.dataSource)
                        .dialect(Dialect.H2)
                        .table("nowhere")
                        .build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("db/migration/txoutbox/h2/V2__txoutbox_inbox.sql");
    }

    @Test
    void the_inbox_ddl_is_the_dialects_template_for_the_table() {
        assertThat(JdbcInbox.ddl(OutboxTable.of("seen"), H2Dialect.INSTANCE))
                .contains("CREATE TABLE IF NOT EXISTS seen (")
                .contains("seen_processed_idx");
    }
}
