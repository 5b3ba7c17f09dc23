package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The notifier's window rule: widen under a sustained stream of commits, narrow when it thins. */
class PgNotifierWindowTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long WIDE = PgNotifier.WIDE_WINDOW.toNanos();

    @Test
    void a_stream_of_at_least_one_commit_a_millisecond_doubles_the_window_up_to_the_wide_one() {
        long window = 2 * MS;
        window = PgNotifier.nextWindow(2 * MS, window, 2, 2 * MS);
        assertThat(window).isEqualTo(4 * MS);
        window = PgNotifier.nextWindow(2 * MS, window, 40, 4 * MS);
        assertThat(window).isEqualTo(8 * MS);
        window = PgNotifier.nextWindow(2 * MS, window, 8, 8 * MS);
        assertThat(window).isEqualTo(WIDE);
        window = PgNotifier.nextWindow(2 * MS, window, 1_000, WIDE);
        assertThat(window).isEqualTo(WIDE);
    }

    @Test
    void a_thinner_stream_halves_it_but_never_below_the_configured_window() {
        assertThat(PgNotifier.nextWindow(2 * MS, WIDE, 3, WIDE)).isEqualTo(WIDE / 2);
        assertThat(PgNotifier.nextWindow(2 * MS, 3 * MS, 1, 3 * MS)).isEqualTo(2 * MS);
        assertThat(PgNotifier.nextWindow(2 * MS, 2 * MS, 1, 2 * MS + 1)).isEqualTo(2 * MS);
    }

    @Test
    void a_window_without_a_request_resets_it() {
        assertThat(PgNotifier.nextWindow(2 * MS, WIDE, 0, WIDE)).isEqualTo(2 * MS);
    }

    @Test
    void a_window_configured_wider_than_the_wide_one_stays_as_configured() {
        long configured = 50 * MS;
        assertThat(PgNotifier.nextWindow(configured, configured, 500, configured))
                .isEqualTo(configured);
        assertThat(PgNotifier.nextWindow(configured, configured, 1, configured)).isEqualTo(configured);
    }

    @Test
    void a_window_of_zero_notifies_every_commit_whatever_the_rate() {
        assertThat(PgNotifier.nextWindow(0, 0, 1_000, MS)).isZero();
    }
}
