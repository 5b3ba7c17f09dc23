package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClaimCursorTest {
    private static final Instant T = Instant.parse("2026-12-02T06:00:00Z");
    private final ClaimCursor cursors = new ClaimCursor(t -> t.isAfter(Instant.parse("0001-01-01T00:00:00Z")));

    private void claimedAt(Instant first) {
        cursors.claimed("r", ClaimCursor.From.BOTTOM, new ClaimCursor.Position(first, 7), 1_000);
    }

    @Test
    void the_first_claim_starts_at_the_bottom() {
        assertThat(cursors.startFor("r")).isEqualTo(ClaimCursor.Start.BOTTOM);
    }

    @Test
    void a_first_claim_that_finds_nothing_leaves_the_cursor_where_it_looked_up_to() {
        cursors.claimed("r", ClaimCursor.From.BOTTOM, null, T, 1_000);
        assertThat(cursors.hasPosition("r")).isTrue();
        assertThat(cursors.aheadFor("r").position())
                .isIn(ClaimCursor.Position.at(T), ClaimCursor.Position.at(T.minus(ClaimCursor.NEAR_RANGE)));
        assertThat(cursors.floorOf("r"))
                .as("rescans start a margin below it")
                .isEqualTo(T.minus(ClaimCursor.FLOOR_MARGIN));
    }

    @Test
    void an_empty_claim_of_a_relay_with_a_cursor_leaves_the_cursor_where_it_was() {
        ClaimCursor.Position first = new ClaimCursor.Position(T, 7);
        claimedAt(T);
        cursors.claimed("r", ClaimCursor.From.BOTTOM, null, T.plusSeconds(60), 1_000);
        assertThat(cursors.aheadFor("r").position())
                .isIn(first, ClaimCursor.Position.at(T.minus(ClaimCursor.NEAR_RANGE)));
    }

    @Test
    void an_empty_first_claim_made_with_a_time_ahead_of_the_clock_leaves_the_cursor_no_later_than_the_clock() {
        Instant before = Instant.now();
        cursors.claimed("r", ClaimCursor.From.BOTTOM, null, before.plus(java.time.Duration.ofDays(1)), 1_000);
        Instant after = Instant.now();
        assertThat(cursors.aheadFor("r").position().availableAt())
                .isBetween(before.minus(ClaimCursor.NEAR_RANGE), after);
    }

    @Test
    void an_empty_claim_up_to_a_time_the_database_cannot_hold_leaves_no_cursor() {
        cursors.claimed("r", ClaimCursor.From.BOTTOM, null, Instant.parse("0000-06-01T00:00:00Z"), 1_000);
        assertThat(cursors.hasPosition("r")).isFalse();
        assertThat(cursors.startFor("r")).isEqualTo(ClaimCursor.Start.BOTTOM);
    }

    @Test
    void a_hint_behind_the_cursor_is_where_the_next_claim_starts_once() {
        claimedAt(T);
        // Ahead of the cursor: the claim from the cursor finds those rows anyway.
        cursors.hint(T.plusSeconds(1));
        cursors.hint(T.minusMillis(1_500));
        cursors.hint(T.minusMillis(900));
        ClaimCursor.Start start = cursors.startFor("r");
        assertThat(start.from()).isEqualTo(ClaimCursor.From.HINT);
        assertThat(start.position()).isEqualTo(ClaimCursor.Position.at(T.minusMillis(1_500)));
        cursors.claimed("r", start.from(), null, 1_000);
        assertThat(cursors.startFor("r").from()).isNotEqualTo(ClaimCursor.From.HINT);
    }

    @Test
    void a_hint_the_database_cannot_hold_is_ignored() {
        claimedAt(T);
        cursors.hint(Instant.parse("0000-06-01T00:00:00Z"));
        assertThat(cursors.startFor("r").from()).isNotEqualTo(ClaimCursor.From.HINT);
    }

    @Test
    void the_near_look_behind_starts_a_short_range_behind_the_cursor() {
        ClaimCursor.Start near = cursors.nearBehind(new ClaimCursor.Position(T, 7));
        assertThat(near.from()).isEqualTo(ClaimCursor.From.NEAR);
        assertThat(near.position()).isEqualTo(ClaimCursor.Position.at(T.minus(ClaimCursor.NEAR_RANGE)));
    }

    @Test
    void a_claim_from_behind_the_cursor_moves_it_back_to_its_first_row() {
        claimedAt(T);
        cursors.hint(T.minusSeconds(2));
        ClaimCursor.Start start = cursors.startFor("r");
        ClaimCursor.Position late = new ClaimCursor.Position(T.minusSeconds(2), 3);
        cursors.claimed("r", start.from(), late, 1_000);
        ClaimCursor.Start next = cursors.startFor("r");
        assertThat(next.position())
                .isIn(late, ClaimCursor.Position.at(late.availableAt().minus(ClaimCursor.NEAR_RANGE)));
    }

    @Test
    void a_stopped_relay_takes_no_hints() {
        claimedAt(T);
        cursors.forget("r");
        cursors.hint(T.minusSeconds(1));
        assertThat(cursors.startFor("r")).isEqualTo(ClaimCursor.Start.BOTTOM);
    }

    @Test
    void a_rescan_starts_at_the_floor_below_the_first_row_of_the_claim_from_the_very_bottom() {
        claimedAt(T);
        ClaimCursor.Start rescan = cursors.rescanFor("r");
        assertThat(rescan.from()).isEqualTo(ClaimCursor.From.FLOOR);
        assertThat(rescan.position()).isEqualTo(ClaimCursor.Position.at(T.minus(ClaimCursor.FLOOR_MARGIN)));
        assertThat(cursors.floorOf("r")).isEqualTo(T.minus(ClaimCursor.FLOOR_MARGIN));
    }

    @Test
    void a_claim_below_the_floor_lowers_it() {
        claimedAt(T);
        Instant below = T.minus(ClaimCursor.FLOOR_MARGIN).minusSeconds(60);
        cursors.claimed("r", ClaimCursor.From.HINT, new ClaimCursor.Position(below, 1), 1_000);
        assertThat(cursors.floorOf("r")).isEqualTo(below);
        assertThat(cursors.rescanFor("r").position()).isEqualTo(new ClaimCursor.Position(below, 1));
    }
}
