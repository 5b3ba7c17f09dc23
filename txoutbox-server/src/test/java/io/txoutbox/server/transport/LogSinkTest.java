package io.txoutbox.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The log transport prints one line per event, whatever the event's text holds. */
class LogSinkTest {

    @Test
    void line_breaks_and_other_control_characters_are_escaped_so_no_log_line_can_be_forged() {
        assertThat(LogSink.escape("order.placed\r\n12:00:00.000 [main] INFO admin login ok"))
                .isEqualTo("order.placed\\u000d\\u000a12:00:00.000 [main] INFO admin login ok");
        assertThat(LogSink.escape("a\u0000b\u2028c\u0085d")).isEqualTo("a\\u0000b\\u2028c\\u0085d");
        assertThat(LogSink.escape("lone \ud800 high")).isEqualTo("lone \\ud800 high");
        assertThat(LogSink.escape("back\\slash")).isEqualTo("back\\\\slash");
    }

    @Test
    void printable_text_is_kept_as_it_is() {
        assertThat(LogSink.escape("commande.pass\u00e9e \ud83d\ude42")).isEqualTo("commande.pass\u00e9e \ud83d\ude42");
        assertThat(LogSink.escape(null)).isEqualTo("null");
    }
}
