package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** Issue 24, class 6: a validation message names the field, the position and the kind, never input text. */
class ValidationMessagesTest {
    private static final String SECRET = "sk_live_51Hqz";

    private static OutboxEvent json(String payload) {
        return OutboxEvent.builder("order.placed")
                .id(UUID.fromString("018f0000-0000-7000-8000-000000000001"))
                .aggregate("order", "1")
                .payload(payload.getBytes(StandardCharsets.UTF_8), "application/vnd.orders+json")
                .build();
    }

    private static String payloadProblem(OutboxEvent event) {
        try {
            EventValidator.checkPayload(event, 1024 * 1024);
        } catch (OutboxValidationException e) {
            assertThat(e.field()).isEqualTo("OutboxEvent.payload");
            return e.getMessage();
        }
        return null;
    }

    @Test
    void invalid_json_is_described_by_kind_and_position_without_the_offending_token() {
        assertThat(payloadProblem(json("{\"key\": " + SECRET + "}")))
                .isEqualTo("OutboxEvent.payload is not valid JSON, as its JSON content type requires: a syntax error"
                        + " (an unexpected character, token or byte) at line 1, column 23 (byte offset 22)"
                        + " [event 018f0000-0000-7000-8000-000000000001]");
        assertThat(payloadProblem(json("{\"key\":\"" + SECRET + "\nmore\"}")))
                .startsWith("OutboxEvent.payload is not valid JSON, as its JSON content type requires: a syntax error")
                .contains("at line 1, column 22")
                .doesNotContain(SECRET)
                .doesNotContain("more");
        assertThat(payloadProblem(json("{'" + SECRET + "':1}"))).doesNotContain(SECRET);
        assertThat(payloadProblem(json("[\"\\" + SECRET + "\"]"))).doesNotContain("sk_live");
        assertThat(payloadProblem(json("{\"" + SECRET + "\": ")))
                .contains("it ends before its JSON value is complete, at line 1")
                .doesNotContain(SECRET);
        assertThat(payloadProblem(json("{} " + SECRET)))
                .contains("a syntax error")
                .doesNotContain(SECRET);
        assertThat(payloadProblem(json("{} {\"" + SECRET + "\":1}")))
                .contains("a second JSON value starts at line 1, column 4 (byte offset 3)")
                .doesNotContain(SECRET);
        assertThat(payloadProblem(json("[".repeat(1_001) + "]".repeat(1_001))))
                .contains("it nests arrays and objects deeper than 1000 levels");
    }

    @Test
    void the_payload_size_message_names_the_event_by_id_only() {
        OutboxEvent event = OutboxEvent.builder(SECRET)
                .aggregate("order", "1")
                .payload(new byte[2048], "application/octet-stream")
                .build();
        assertThatThrownBy(() -> EventValidator.checkPayload(event, 1024))
                .hasMessage("OutboxEvent.payload is 2.0 KiB (2048 bytes); the limit is 1.0 KiB (1024 bytes)"
                        + " (Outbox.Builder.maxPayloadBytes) [event " + event.id() + "]");
    }

    @Test
    void long_numbers_and_names_are_valid_json() {
        assertThat(payloadProblem(json("[" + "1".repeat(5_000) + "]"))).isNull();
        assertThat(payloadProblem(json("{\"" + "k".repeat(60_000) + "\":1}"))).isNull();
    }

    @Test
    void a_header_name_that_breaks_the_rules_is_named_by_its_entry_never_quoted() {
        for (String name : List.of("Authorization: Bearer " + SECRET, SECRET + "\r\n", SECRET + "x".repeat(200))) {
            assertThatThrownBy(() -> OutboxEvent.builder("t")
                            .aggregate("a", "1")
                            .jsonPayload("{}")
                            .header("ok", "v")
                            .header(name, "v")
                            .build())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageStartingWith("OutboxEvent.headers entry 2: the name ")
                    .message()
                    .doesNotContain(SECRET)
                    .doesNotContain("Bearer");
        }
    }

    @Test
    void a_header_value_is_never_quoted_its_valid_name_is() {
        assertThatThrownBy(() -> OutboxEvent.builder("t")
                        .aggregate("a", "1")
                        .jsonPayload("{}")
                        .header("authorization", "Bearer " + SECRET + "\n")
                        .build())
                .hasMessage("OutboxEvent.headers 'authorization' value has a control character (code 10) at 20;"
                        + " header values must be printable text (a tab is allowed)");
    }

    @Test
    void text_fields_are_described_by_length_and_position_never_quoted() {
        for (String bad : List.of(SECRET + "\u0000", SECRET + "\ud800", SECRET + "y".repeat(300))) {
            assertThatThrownBy(() -> OutboxEvent.builder(bad)
                            .aggregate(bad, bad)
                            .jsonPayload("{}")
                            .tenant(bad)
                            .build())
                    .isInstanceOf(OutboxValidationException.class)
                    .message()
                    .startsWith("OutboxEvent.eventType ")
                    .doesNotContain(SECRET);
        }
    }

    @Test
    void a_null_header_map_is_a_validation_error() {
        assertThatThrownBy(() -> OutboxEvent.builder("t").headers(null))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("OutboxEvent.headers is missing; it is required");
    }

    @Test
    void a_due_time_beyond_the_columns_is_rejected_when_the_event_is_made() {
        assertThatThrownBy(() -> OutboxEvent.builder("t")
                        .aggregate("a", "1")
                        .jsonPayload("{}")
                        .availableAt(Instant.MAX)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("OutboxEvent.availableAt is " + Instant.MAX + "; it must be between 1000-01-01T00:00:00Z"
                        + " and 9999-12-31T23:59:59.999999Z (the due times every supported database holds)");
        OutboxEvent delayed = OutboxEvent.builder("t")
                .aggregate("a", "1")
                .jsonPayload("{}")
                .delay(EventValidator.MAX_DELAY)
                .build();
        assertThatThrownBy(() -> EventValidator.checkDue(delayed, Instant.parse("2030-01-01T00:00:00Z")))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("OutboxEvent.delay is " + EventValidator.MAX_DELAY
                        + "; appended at 2030-01-01T00:00:00Z the event would be due after");
        assertThatThrownBy(() -> OutboxEvent.builder("t")
                        .aggregate("a", "1")
                        .jsonPayload("{}")
                        .delay(EventValidator.MAX_DELAY.plusNanos(1))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("OutboxEvent.delay is ");
        EventValidator.checkDue(delayed, EventValidator.EARLIEST_TIME);
        EventValidator.checkDue(
                OutboxEvent.builder("t")
                        .aggregate("a", "1")
                        .jsonPayload("{}")
                        .delay(Duration.ofDays(365))
                        .build(),
                Instant.parse("2030-01-01T00:00:00Z"));
    }

    @Test
    void a_purge_age_beyond_the_columns_is_rejected_naming_the_age() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:purge_age_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Outbox outbox = Outbox.builder(h2)
                .table("purge_age")
                .createSchemaIfMissing(true)
                .build()) {
            assertThatThrownBy(() -> outbox.admin().purgePublished(Duration.ofSeconds(Long.MAX_VALUE)))
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageStartingWith("purgePublished age is PT");
            assertThat(outbox.admin().purgePublished(Duration.ofDays(365))).isZero();
        }
    }
}
