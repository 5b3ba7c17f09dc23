package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxValidationException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.function.Supplier;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 9: every validation case throws a clear error naming the field (and the size and limit
 * where there is one) and writes nothing, even when the bad event comes after good ones in a batch.
 */
class ValidationTest extends DatabaseTest {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    @Test
    void missing_event_type_is_rejected() {
        rejected(() -> OutboxEvent.builder(null).aggregate("order", "1").jsonPayload("{}"))
                .hasMessage("OutboxEvent.eventType is missing; it is required");
    }

    @Test
    void missing_aggregate_id_is_rejected() {
        rejected(() -> OutboxEvent.builder("order.placed")
                        .aggregate("order", null)
                        .jsonPayload("{}"))
                .hasMessage("OutboxEvent.aggregateId is missing; it is required");
    }

    @Test
    void missing_aggregate_type_and_payload_are_rejected() {
        rejected(() -> OutboxEvent.builder("order.placed").aggregate(null, "1").jsonPayload("{}"))
                .hasMessage("OutboxEvent.aggregateType is missing; it is required");
        rejected(() -> OutboxEvent.builder("order.placed").aggregate("order", "1"))
                .hasMessage("OutboxEvent.payload is missing; it is required");
    }

    @Test
    void blank_strings_are_rejected() {
        rejected(() -> OutboxEvent.builder("  ").aggregate("order", "1").jsonPayload("{}"))
                .hasMessage("OutboxEvent.eventType is blank; it must hold text");
        rejected(() -> OutboxEvent.builder("t").aggregate("order", "\t").jsonPayload("{}"))
                .hasMessage("OutboxEvent.aggregateId is blank; it must hold text");
        rejected(() -> OutboxEvent.builder("t")
                        .aggregate("order", "1")
                        .jsonPayload("{}")
                        .tenant(""))
                .hasMessage("OutboxEvent.tenantId is blank; it must hold text");
    }

    @Test
    void overlong_strings_name_their_length_and_the_limit() {
        rejected(() -> OutboxEvent.builder("t".repeat(300))
                        .aggregate("order", "1")
                        .jsonPayload("{}"))
                .hasMessage("OutboxEvent.eventType is 300 characters; the limit is 255");
    }

    @Test
    void oversize_payload_names_its_size_and_the_configured_limit_and_writes_nothing() throws Exception {
        Outbox outbox = outboxBuilder().maxPayloadBytes(1024).build();
        OutboxEvent big = OutboxEvent.builder("order.placed")
                .aggregate("order", "1")
                .jsonPayload("\"" + "x".repeat(2048) + "\"")
                .build();
        assertRejectedAtAppend(outbox, big)
                .hasMessageStartingWith("OutboxEvent.payload is 2.0 KiB (2050 bytes); the limit is 1.0 KiB (1024 bytes)"
                        + " (Outbox.Builder.maxPayloadBytes)")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("OutboxEvent.payload");
    }

    @Test
    void default_payload_cap_is_one_mebibyte() throws Exception {
        Outbox outbox = newOutbox();
        byte[] justOver = new byte[1024 * 1024 + 1];
        OutboxEvent big = OutboxEvent.builder("blob.stored")
                .aggregate("blob", "1")
                .payload(justOver, "application/octet-stream")
                .build();
        assertRejectedAtAppend(outbox, big)
                .hasMessageStartingWith(
                        "OutboxEvent.payload is 1.0 MiB (1048577 bytes); the limit is 1.0 MiB (1048576 bytes)");
        OutboxEvent fits = OutboxEvent.builder("blob.stored")
                .aggregate("blob", "1")
                .payload(new byte[1024 * 1024], "application/octet-stream")
                .build();
        appendCommitted(outbox, fits);
        assertThat(rows(outbox)).isEqualTo(1);
    }

    @Test
    void invalid_json_for_a_json_content_type_is_rejected_with_the_position() throws Exception {
        Outbox outbox = newOutbox();
        for (String bad : List.of("{\"a\":", "{'a':1}", "", "   ", "{} {}", "[1,2,,]")) {
            OutboxEvent event = OutboxEvent.builder("order.placed")
                    .aggregate("order", "1")
                    .payload(bad.getBytes(StandardCharsets.UTF_8), "application/vnd.orders+json")
                    .build();
            assertRejectedAtAppend(outbox, event)
                    .hasMessageStartingWith(
                            "OutboxEvent.payload is not valid JSON, as its JSON content type" + " requires: ");
        }
        OutboxEvent notJson = OutboxEvent.builder("order.placed")
                .aggregate("order", "1")
                .payload("{not json".getBytes(StandardCharsets.UTF_8), "text/plain")
                .build();
        appendCommitted(outbox, notJson);
        assertThat(rows(outbox)).as("only JSON content types are parsed").isEqualTo(1);
    }

    @Test
    void header_names_and_values_out_of_bounds_are_rejected() {
        rejected(() -> base().header("bad name", "v"))
                .hasMessageContaining("OutboxEvent.headers entry 1: the name has a character (code 32) at 3")
                .message()
                .doesNotContain("bad name");
        rejected(() -> base().header("x".repeat(129), "v")).hasMessageContaining("is 129 characters; the limit is 128");
        rejected(() -> base().header("h", "v".repeat(8_193)))
                .hasMessage("OutboxEvent.headers 'h' value is 8193 characters; the limit is 8192");
        rejected(() -> base().header("h", "line\r\nInjected: yes"))
                .hasMessageContaining("OutboxEvent.headers 'h' value has a control character (code 13) at 4");
        rejected(() -> {
                    OutboxEvent.Builder b = base();
                    for (int i = 0; i < 65; i++) {
                        b.header("h" + i, "v");
                    }
                    return b;
                })
                .hasMessage("OutboxEvent.headers has 65 entries; the limit is 64");
    }

    @Test
    void other_bounds_are_rejected() {
        rejected(() -> base().version(0)).hasMessage("OutboxEvent.eventVersion is 0; it must be 1 or more");
        rejected(() -> base().maxAttempts(0)).hasMessage("OutboxEvent.maxAttempts is 0; it must be between 1 and 1000");
        rejected(() -> base().delay(java.time.Duration.ofSeconds(-1)))
                .hasMessage("OutboxEvent.delay is PT-1S; it must not be negative");
    }

    @Test
    void invalid_table_names_are_rejected_before_any_sql() {
        for (String bad : List.of("Outbox", "outbox; drop table x", "1outbox", "out-box", "a".repeat(49))) {
            assertThatThrownBy(() -> Outbox.builder(dataSource()).table(bad).build())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageStartingWith("Outbox.Builder.table is '");
        }
        assertThatThrownBy(() -> Outbox.builder(dataSource()).maxPayloadBytes(0).build())
                .hasMessage("Outbox.Builder.maxPayloadBytes is 0; it must be between 1 and 67108864");
    }

    @Test
    void a_bad_event_in_a_batch_writes_none_of_the_batch() throws Exception {
        Outbox outbox = outboxBuilder().maxPayloadBytes(100).build();
        OutboxEvent good = event("order.placed", "1");
        OutboxEvent bad = OutboxEvent.builder("order.placed")
                .aggregate("order", "2")
                .jsonPayload("\"" + "x".repeat(200) + "\"")
                .build();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.appendAll(c, List.of(good, good, bad)))
                    .isInstanceOf(OutboxValidationException.class);
            c.commit();
        }
        assertThat(rows(outbox)).isZero();
    }

    private static OutboxEvent.Builder base() {
        return OutboxEvent.builder("order.placed").aggregate("order", "1").jsonPayload("{}");
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> rejected(Supplier<OutboxEvent.Builder> builder) {
        return assertThatThrownBy(() -> builder.get().build()).isInstanceOf(OutboxValidationException.class);
    }

    private AbstractThrowableAssert<?, ? extends Throwable> assertRejectedAtAppend(Outbox outbox, OutboxEvent event)
            throws Exception {
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            var thrown =
                    assertThatThrownBy(() -> outbox.append(c, event)).isInstanceOf(OutboxValidationException.class);
            c.commit();
            assertThat(rows(outbox)).as("nothing written").isZero();
            return thrown;
        }
    }
}
