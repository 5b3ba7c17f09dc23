package io.txoutbox.settings;

import java.time.Duration;

/** Durations as the docs, the properties and the YAML write them: {@code 2s}, {@code 250ms}, {@code 1d}. */
final class DurationText {
    private DurationText() {}

    static String format(Duration d) {
        if (d.isNegative() || d.getNano() % 1_000_000 != 0) {
            return d.toString();
        }
        long seconds = d.getSeconds();
        if (d.getNano() != 0) {
            return seconds < Long.MAX_VALUE / 1_000 ? seconds * 1_000 + d.getNano() / 1_000_000 + "ms" : d.toString();
        }
        if (seconds == 0) {
            return "0s";
        }
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }
}
