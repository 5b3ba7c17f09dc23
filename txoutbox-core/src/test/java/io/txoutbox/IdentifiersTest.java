package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IdentifiersTest {

    @Test
    void tables_parse_with_and_without_schema() {
        assertThat(OutboxTable.of("outbox").qualifiedName()).isEqualTo("outbox");
        assertThat(OutboxTable.of("events.outbox").schema()).isEqualTo("events");
        assertThat(OutboxTable.of("events.outbox").channel()).isEqualTo("txoutbox_events_outbox");
    }

    @Test
    void anything_that_could_inject_sql_is_refused_with_the_rule() {
        assertThatThrownBy(() -> OutboxTable.of("outbox\"; DROP TABLE x; --"))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("is not a valid identifier")
                .hasMessageContaining("[a-z_][a-z0-9_]*");
        assertThatThrownBy(() -> new OutboxTable.Columns("id", "Type", "a", "b", "c"))
                .hasMessageStartingWith("txoutbox.columns.aggregate-type 'Type'");
        assertThatThrownBy(() -> OutboxTable.of("a".repeat(49)))
                .hasMessage("txoutbox.table '" + "a".repeat(49) + "' is 49 characters; the limit is 48");
    }

    @Test
    void transient_sql_states_are_classified_by_class_not_message() {
        assertThat(SqlExceptions.isTransient(new java.sql.SQLException("x", "08006")))
                .isTrue();
        assertThat(SqlExceptions.isTransient(new java.sql.SQLException("x", "40P01")))
                .isTrue();
        assertThat(SqlExceptions.isTransient(new java.sql.SQLException("x", "57P01")))
                .isTrue();
        assertThat(SqlExceptions.isTransient(new java.sql.SQLException("connection reset", "23505")))
                .isFalse();
        assertThat(SqlExceptions.translate("claim", "outbox", new java.sql.SQLException("boom", "40001")))
                .hasMessage("txoutbox claim on table 'outbox' failed: boom (SQLState 40001, transient)")
                .matches(e -> e.isTransient() && e.sqlState().equals("40001"));
    }
}
