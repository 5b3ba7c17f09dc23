package io.txoutbox.webhook;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Reads an HTTP {@code Retry-After} value: delay seconds or an HTTP-date (RFC 9110, section 10.2.3). */
final class RetryAfter {
    private RetryAfter() {}

    /**
     * @param value the header's value, or {@code null}
     * @param now the time the response arrived
     * @return the earliest time to try again, or {@code null} when the header is absent or unreadable (the
     *     relay's backoff applies then); a date in the past yields {@code now}
     */
    static Instant parse(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            try {
                return now.plusSeconds(Long.parseLong(v));
            } catch (NumberFormatException | ArithmeticException | DateTimeException e) {
                return null;
            }
        }
        try {
            Instant at =
                    ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return at.isBefore(now) ? now : at;
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
