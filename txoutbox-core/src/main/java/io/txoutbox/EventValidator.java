package io.txoutbox;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/** Every check an event passes before it may be written. Each failure names the field and the limit. */
final class EventValidator {
    static final int MAX_TEXT = 255;
    static final int MAX_HEADERS = 64;
    static final int MAX_HEADER_NAME = EventHeaders.MAX_NAME_LENGTH;
    static final int MAX_HEADER_VALUE = 8_192;
    static final int MAX_ATTEMPTS_LIMIT = 1_000;
    static final int MAX_JSON_NESTING = 1_000;

    /**
     * The earliest due time every supported column holds: MariaDB's and MySQL's {@code DATETIME(6)} start at
     * the year 1000 (PostgreSQL's {@code timestamptz} and H2's {@code TIMESTAMP WITH TIME ZONE} go further).
     */
    static final Instant EARLIEST_TIME = Instant.parse("1000-01-01T00:00:00Z");

    /**
     * The latest due time every supported column holds: {@code DATETIME(6)} ends at 9999-12-31
     * 23:59:59.999999, and MySQL rounds a finer fraction up into the year 10000, which it refuses.
     */
    static final Instant LATEST_TIME = Instant.parse("9999-12-31T23:59:59.999999Z");

    /** The longest delay: one that no append time within the columns' range can carry out of it. */
    static final Duration MAX_DELAY = Duration.between(EARLIEST_TIME, LATEST_TIME);

    static final String TIME_RANGE = EARLIEST_TIME + ".." + LATEST_TIME;

    // Only the nesting depth is bounded (a consumer's recursive parser); a long number, name or string
    // is valid JSON, so those limits of Jackson are lifted.
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_JSON_NESTING)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE)
                    .build())
            .build();

    private EventValidator() {}

    /** The event's identity: id, type, aggregate and schema version. */
    static void checkIdentity(UUID id, String eventType, String aggregateType, String aggregateId, int eventVersion) {
        if (id == null) {
            throw missing("id");
        }
        requireText("eventType", eventType);
        requireText("aggregateType", aggregateType);
        requireText("aggregateId", aggregateId);
        if (eventVersion < 1) {
            throw OutboxValidationException.belowMinimum("OutboxEvent.eventVersion", eventVersion, 1);
        }
    }

    /** What is published: the payload (present; its size and JSON are {@link #checkPayload} at append), type, headers. */
    static void checkBody(byte[] payload, String contentType, Map<String, String> headers) {
        if (payload == null) {
            throw missing("payload");
        }
        requireText("contentType", contentType);
        checkHeaders(headers);
    }

    /** Where and when it is published: tenant, route, due time or delay, and its own attempt budget. */
    static void checkDelivery(
            String tenantId, String destination, Instant availableAt, Duration delay, Integer maxAttempts) {
        optionalText("tenantId", tenantId);
        optionalText("destination", destination);
        if (delay != null && delay.isNegative()) {
            throw OutboxValidationException.negative("OutboxEvent.delay", delay);
        }
        if (delay != null && delay.compareTo(MAX_DELAY) > 0) {
            throw OutboxValidationException.rule(
                    "OutboxEvent.delay",
                    delay,
                    "be at most " + MAX_DELAY + " (the span of due times every supported database holds, " + TIME_RANGE
                            + ")",
                    "<= " + MAX_DELAY);
        }
        if (availableAt != null && (availableAt.isBefore(EARLIEST_TIME) || availableAt.isAfter(LATEST_TIME))) {
            throw OutboxValidationException.rule(
                    "OutboxEvent.availableAt",
                    availableAt,
                    "be between " + EARLIEST_TIME + " and " + LATEST_TIME
                            + " (the due times every supported database holds)",
                    TIME_RANGE);
        }
        if (delay != null && availableAt != null) {
            throw new OutboxValidationException(
                    "OutboxEvent.delay",
                    null,
                    "OutboxEvent.delay and OutboxEvent.availableAt are both set; give one or the other");
        }
        if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT)) {
            throw OutboxValidationException.outOfRange("OutboxEvent.maxAttempts", maxAttempts, 1, MAX_ATTEMPTS_LIMIT);
        }
    }

    /** The checks that depend on the outbox's settings or cost a parse: size, then JSON validity. */
    static void checkPayload(OutboxEvent event, int maxPayloadBytes) {
        byte[] payload = event.payloadUnsafe();
        if (payload.length > maxPayloadBytes) {
            throw new OutboxValidationException(
                    "OutboxEvent.payload",
                    maxPayloadBytes + " bytes",
                    "OutboxEvent.payload is " + bytes(payload.length) + "; the limit is " + bytes(maxPayloadBytes)
                            + " (Outbox.Builder.maxPayloadBytes) [event " + event.id() + "]");
        }
        if (isJson(event.contentType())) {
            String problem = jsonProblem(payload);
            if (problem != null) {
                throw new OutboxValidationException(
                        "OutboxEvent.payload",
                        null,
                        "OutboxEvent.payload is not valid JSON, as its JSON content type requires: " + problem
                                + " [event " + event.id() + "]");
            }
        }
    }

    /**
     * The due time of a delayed event, known only at append: the append time plus the delay must still be
     * a time every supported database holds. (The delay itself is bounded when the event is made.)
     */
    static void checkDue(OutboxEvent event, Instant now) {
        if (event.delay() != null && now.plus(event.delay()).isAfter(LATEST_TIME)) {
            throw new OutboxValidationException(
                    "OutboxEvent.delay",
                    "<= " + LATEST_TIME,
                    "OutboxEvent.delay is " + event.delay() + "; appended at " + now + " the event would be due after "
                            + LATEST_TIME + ", the latest due time every supported database holds [event "
                            + event.id() + "]");
        }
    }

    static boolean isJson(String contentType) {
        String type = contentType.toLowerCase(Locale.ROOT);
        int semi = type.indexOf(';');
        if (semi >= 0) {
            type = type.substring(0, semi);
        }
        type = type.trim();
        return type.equals(OutboxEvent.APPLICATION_JSON) || type.endsWith("+json");
    }

    /**
     * The first problem that makes the payload other than one complete JSON value: its kind and its
     * position, never the parser's message, which quotes the payload (an unrecognized token, the
     * character it did not expect).
     *
     * @return the kind and position of the first error, or {@code null} for one complete JSON value
     */
    private static String jsonProblem(byte[] payload) {
        if (payload.length == 0) {
            return "it is empty";
        }
        try (JsonParser parser = JSON.createParser(payload)) {
            if (parser.nextToken() == null) {
                return "it holds only whitespace";
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                return "a second JSON value starts " + at(parser.currentTokenLocation());
            }
            return null;
        } catch (JsonEOFException e) {
            return "it ends before its JSON value is complete, " + at(e.getLocation());
        } catch (StreamConstraintsException e) {
            return "it nests arrays and objects deeper than " + MAX_JSON_NESTING + " levels, " + at(e.getLocation());
        } catch (JsonProcessingException e) {
            return "a syntax error (an unexpected character, token or byte) " + at(e.getLocation());
        } catch (IOException e) {
            return "it could not be read (" + e.getClass().getSimpleName() + ")";
        }
    }

    /** A parser location as line, column and byte offset; nothing of the text around it. */
    private static String at(JsonLocation location) {
        if (location == null) {
            return "at an unknown position";
        }
        long offset = location.getByteOffset() >= 0 ? location.getByteOffset() : location.getCharOffset();
        return "at line " + location.getLineNr() + ", column " + location.getColumnNr()
                + (offset >= 0 ? " (byte offset " + offset + ")" : "");
    }

    /**
     * A header name that breaks a rule is named by its entry number, never quoted: a text that is not a
     * name may be anything (a value pasted in its place, a secret). A valid name is quoted, as the field.
     */
    private static void checkHeaders(Map<String, String> headers) {
        if (headers.size() > MAX_HEADERS) {
            throw new OutboxValidationException(
                    "OutboxEvent.headers",
                    MAX_HEADERS + " entries",
                    "OutboxEvent.headers has " + headers.size() + " entries; the limit is " + MAX_HEADERS);
        }
        int entry = 0;
        for (Map.Entry<String, String> header : headers.entrySet()) {
            entry++;
            String name = header.getKey();
            if (name == null || name.isEmpty()) {
                throw new OutboxValidationException(
                        "OutboxEvent.headers",
                        null,
                        "OutboxEvent.headers entry " + entry + " has an empty or null name");
            }
            if (name.length() > MAX_HEADER_NAME) {
                throw OutboxValidationException.tooLong(
                        "OutboxEvent.headers",
                        "OutboxEvent.headers entry " + entry + ": the name",
                        name.length(),
                        MAX_HEADER_NAME);
            }
            for (int i = 0; i < name.length(); i++) {
                if (!EventHeaders.isNameChar(name.charAt(i))) {
                    throw new OutboxValidationException(
                            "OutboxEvent.headers",
                            null,
                            "OutboxEvent.headers entry " + entry + ": the name has a character ("
                                    + codePoint(name.charAt(i)) + ") at " + i
                                    + " that a name may not hold; a name may hold letters, digits and"
                                    + " !#$%&'*+.^_`|~-");
                }
            }
            String value = header.getValue();
            if (value == null) {
                throw new OutboxValidationException(
                        "OutboxEvent.headers", null, "OutboxEvent.headers '" + name + "' has a null value");
            }
            if (value.length() > MAX_HEADER_VALUE) {
                throw OutboxValidationException.tooLong(
                        "OutboxEvent.headers",
                        "OutboxEvent.headers '" + name + "' value",
                        value.length(),
                        MAX_HEADER_VALUE);
            }
            String problem = characterProblem(value, true);
            if (problem != null) {
                throw new OutboxValidationException(
                        "OutboxEvent.headers",
                        null,
                        "OutboxEvent.headers '" + name + "' value has " + problem
                                + "; header values must be printable text (a tab is allowed)");
            }
        }
    }

    private static void requireText(String field, String value) {
        if (value == null) {
            throw missing(field);
        }
        if (value.isBlank()) {
            throw new OutboxValidationException(
                    "OutboxEvent." + field, null, "OutboxEvent." + field + " is blank; it must hold text");
        }
        checkLength(field, value);
        String problem = characterProblem(value, false);
        if (problem != null) {
            throw new OutboxValidationException(
                    "OutboxEvent." + field,
                    null,
                    "OutboxEvent." + field + " has " + problem + "; it must be printable text: no control"
                            + " characters, line or paragraph separators, or unpaired surrogates");
        }
    }

    /**
     * The characters no text field may hold: control characters (U+0000 to U+001F and U+007F to U+009F:
     * a NUL that PostgreSQL cannot store, a CR or LF that forges a log line or that an HTTP header cannot
     * carry), the line and paragraph separators U+2028 and U+2029 (line breaks to many log viewers), and
     * unpaired surrogates (not encodable in UTF-8: a driver would store {@code ?}).
     *
     * @param allowTab whether a tab is allowed (header values)
     * @return the first problem with its position, or {@code null}
     */
    static String characterProblem(String value, boolean allowTab) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
                continue;
            }
            if (Character.isSurrogate(c)) {
                return "an unpaired surrogate (" + codePoint(c) + ") at " + i;
            }
            if ((Character.isISOControl(c) && !(allowTab && c == '\t')) || c == '\u2028' || c == '\u2029') {
                return "a control character (" + codePoint(c) + ") at " + i;
            }
        }
        return null;
    }

    private static String codePoint(char c) {
        return "code " + (int) c;
    }

    private static void optionalText(String field, String value) {
        if (value != null) {
            requireText(field, value);
        }
    }

    private static void checkLength(String field, String value) {
        if (value.length() > MAX_TEXT) {
            throw OutboxValidationException.tooLong(
                    "OutboxEvent." + field, "OutboxEvent." + field, value.length(), MAX_TEXT);
        }
    }

    private static OutboxValidationException missing(String field) {
        return OutboxValidationException.missing("OutboxEvent." + field);
    }

    static String bytes(long n) {
        if (n >= 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB (%d bytes)", n / (1024.0 * 1024.0), n);
        }
        if (n >= 1024) {
            return String.format(Locale.ROOT, "%.1f KiB (%d bytes)", n / 1024.0, n);
        }
        return n + " bytes";
    }
}
