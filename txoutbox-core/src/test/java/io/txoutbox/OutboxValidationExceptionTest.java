package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The rules' messages are built once, from the field, the value and the limit; an outbox's settings are
 * checked without a database, so that a configuration loader gets the library's field and message.
 */
class OutboxValidationExceptionTest {

    @Test
    void each_rule_names_the_field_the_value_and_the_limit() {
        assertThat(OutboxValidationException.missing("X.y"))
                .hasMessage("X.y is missing; it is required")
                .satisfies(e -> assertThat(e.limit()).isNull());
        assertThat(OutboxValidationException.outOfRange("X.y", 0, 1, 10))
                .hasMessage("X.y is 0; it must be between 1 and 10")
                .satisfies(e -> assertThat(e.limit()).isEqualTo("1..10"));
        assertThat(OutboxValidationException.belowMinimum("X.y", -2, 1))
                .hasMessage("X.y is -2; it must be 1 or more")
                .satisfies(e -> assertThat(e.limit()).isEqualTo(">= 1"));
        assertThat(OutboxValidationException.notPositive("X.y", Duration.ZERO))
                .hasMessage("X.y is PT0S; it must be positive")
                .satisfies(e -> assertThat(e.limit()).isEqualTo("> 0"));
        assertThat(OutboxValidationException.negative("X.y", Duration.ofSeconds(-1)))
                .hasMessage("X.y is PT-1S; it must not be negative");
        assertThat(OutboxValidationException.tooLong("X.y", "X.y 'abc'", 3, 2))
                .hasMessage("X.y 'abc' is 3 characters; the limit is 2")
                .satisfies(e -> {
                    assertThat(e.field()).isEqualTo("X.y");
                    assertThat(e.limit()).isEqualTo("2 characters");
                });
    }

    @Test
    void an_outboxs_settings_are_checked_without_a_database() {
        assertThatThrownBy(() -> Outbox.builder(null).maxPayloadBytes(0).validate())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("Outbox.Builder.maxPayloadBytes is 0; it must be between 1 and 67108864");
        assertThatThrownBy(() ->
                        Outbox.builder(null).notifyWindow(Duration.ofSeconds(2)).validate())
                .hasMessage("Outbox.Builder.notifyWindow is 2s; it must be at most 1s");
        assertThatThrownBy(() -> Outbox.builder(null)
                        .ordered(DeadHeadPolicy.BLOCK)
                        .changeDataCapture(true)
                        .validate())
                .hasMessageStartingWith("Outbox.Builder.ordered and Outbox.Builder.changeDataCapture contradict");
        assertThatThrownBy(() -> Outbox.builder(null).table("Bad").validate())
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).field()).isEqualTo("Outbox.Builder.table"));
        assertThat(Outbox.builder(null).validate()).as("the defaults are valid").isNotNull();
        assertThatThrownBy(() -> Outbox.builder(null).build())
                .hasMessage("Outbox.Builder.dataSource is missing; it is required");
    }
}
