package io.txoutbox;

import io.txoutbox.jdbc.JdbcBackend;
import java.time.Duration;

/** The rule of {@link Outbox.Builder#publishedPartitions(Duration)}, checked at {@code validate()}. */
final class PartitionWidth {
    /** The narrowest period: 1 hour (partitions are named after the hour they start). */
    static final Duration MIN = Duration.ofHours(1);

    /** The widest period: 31 days. */
    static final Duration MAX = Duration.ofDays(31);

    private static final String FIELD = "Outbox.Builder.publishedPartitions";

    private PartitionWidth() {}

    /**
     * @param width the width of a period
     * @param changeDataCapture whether the outbox is in change-data-capture mode
     * @param dialect the dialect, or {@code null} when not known yet (checked again at build)
     * @param table the table
     * @throws OutboxValidationException naming the setting
     */
    static void check(Duration width, boolean changeDataCapture, Dialect dialect, OutboxTable table) {
        if (width.compareTo(MIN) < 0
                || width.compareTo(MAX) > 0
                || width.toSeconds() % MIN.toSeconds() != 0
                || width.toNanosPart() != 0) {
            throw OutboxValidationException.rule(
                    FIELD,
                    width,
                    "be a whole number of hours between 1 hour and 31 days",
                    MIN.toHours() + ".." + MAX.toHours() + " h");
        }
        if (changeDataCapture) {
            throw new OutboxValidationException(
                    FIELD,
                    null,
                    FIELD + " and Outbox.Builder.changeDataCapture contradict each other: published partitions"
                            + " keep what relays published, and a table in change-data-capture mode has no relay"
                            + " (append deletes every row it inserts)");
        }
        if (dialect != null) {
            JdbcBackend.publishedPartitionsDdl(dialect, table); // refuses a dialect without partitions
        }
    }
}
