package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class PgWakeupsHintTest {

    @Test
    void a_hint_goes_round_to_the_microsecond_rounded_down() {
        Instant at = Instant.parse("2026-12-02T06:00:00.123456789Z");
        String payload = PgWakeups.formatHint(at);
        assertThat(payload).isEqualTo(at.getEpochSecond() + ".123456");
        assertThat(PgWakeups.parseHint(payload)).isEqualTo(Instant.parse("2026-12-02T06:00:00.123456Z"));
    }

    @Test
    void times_before_the_epoch_keep_their_sign() {
        Instant at = Instant.parse("1969-12-31T23:59:58.5Z");
        assertThat(PgWakeups.formatHint(at)).isEqualTo("-1.500000");
        assertThat(PgWakeups.parseHint("-1.500000")).isEqualTo(at);
    }

    @Test
    void what_the_trigger_sends_is_read() {
        // extract(epoch FROM timestamptz)::text on PostgreSQL 14 and later, and a double's text before.
        assertThat(PgWakeups.parseHint("1733123456.123456")).isEqualTo(Instant.parse("2024-12-02T07:10:56.123456Z"));
        assertThat(PgWakeups.parseHint("1733123456")).isEqualTo(Instant.ofEpochSecond(1733123456));
        assertThat(PgWakeups.parseHint("1733123456.12346")).isEqualTo(Instant.parse("2024-12-02T07:10:56.12346Z"));
    }

    @Test
    void no_hint_means_an_empty_payload() {
        assertThat(PgWakeups.formatHint(null)).isEmpty();
        assertThat(PgWakeups.parseHint("")).isNull();
        assertThat(PgWakeups.parseHint(null)).isNull();
    }

    @Test
    void a_payload_that_is_no_hint_is_a_plain_wake_up() {
        for (String hostile : new String[] {
            "garbage",
            "1e999999999",
            "1E5",
            "NaN",
            "Infinity",
            "-infinity",
            " 1733123456",
            "1733123456 ",
            "+1733123456",
            "1733123456.",
            ".5",
            "1733123456.1234567890",
            "9999999999999",
            "1733123456.123456; DROP TABLE outbox",
            "١٧٣٣١٢٣٤٥٦",
            "9".repeat(7_999)
        }) {
            assertThat(PgWakeups.parseHint(hostile)).as(hostile).isNull();
        }
    }

    @Test
    void the_trigger_template_gets_the_lateness_of_its_hints() {
        assertThat(PgWakeups.render("{late_ms}", io.txoutbox.OutboxTable.of("outbox")))
                .isEqualTo(Long.toString(PgWakeups.LATE_HINT_MILLIS));
        assertThat(ClaimCursor.NEAR_RANGE.toMillis())
                .as("rows too little late for a hint are within the near look-behind")
                .isGreaterThan(PgWakeups.LATE_HINT_MILLIS + ClaimCursor.NEAR_INTERVAL.toMillis());
    }
}
