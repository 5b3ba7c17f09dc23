package io.txoutbox;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
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
    static final int MAX_HEADER_NAME = 128;
    static final int MAX_HEADER_VALUE = 8_192;
    static final int MAX_ATTEMPTS_LIMIT = 1_000;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(1_000)
                    .maxStringLength(Integer.MAX_VALUE)
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
                            + " (Outbox.Builder.maxPayloadBytes) [event " + event.id() + ", type "
                            + event.eventType() + "]");
        }
        if (isJson(event.contentType())) {
            String problem = jsonProblem(payload);
            if (problem != null) {
                throw new OutboxValidationException(
                        "OutboxEvent.payload",
                        null,
                        "OutboxEvent.payload is not valid JSON for content type " + event.contentType() + ": " + problem
                                + " [event " + event.id() + ", type " + event.eventType() + "]");
            }
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

    /** @return a description of the first syntax error, or {@code null} for one complete JSON value */
    private static String jsonProblem(byte[] payload) {
        if (payload.length == 0) {
            return "the payload is empty";
        }
        try (JsonParser parser = JSON.createParser(payload)) {
            if (parser.nextToken() == null) {
                return "the payload holds only whitespace";
            }
            parser.skipChildren();
            if (parser.nextToken() != null) {
                return "more than one JSON value at " + parser.currentLocation().offsetDescription();
            }
            return null;
        } catch (JsonProcessingException e) {
            return e.getOriginalMessage() + " at "
                    + (e.getLocation() == null ? "?" : e.getLocation().offsetDescription());
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    private static void checkHeaders(Map<String, String> headers) {
        if (headers.size() > MAX_HEADERS) {
            throw new OutboxValidationException(
                    "OutboxEvent.headers",
                    MAX_HEADERS + " entries",
                    "OutboxEvent.headers has " + headers.size() + " entries; the limit is " + MAX_HEADERS);
        }
        for (Map.Entry<String, String> header : headers.entrySet()) {
            String name = header.getKey();
            if (name == null || name.isEmpty()) {
                throw new OutboxValidationException(
                        "OutboxEvent.headers", null, "OutboxEvent.headers has an empty or null header name");
            }
            if (name.length() > MAX_HEADER_NAME) {
                throw OutboxValidationException.tooLong(
                        "OutboxEvent.headers",
                        "OutboxEvent.headers name '" + name.substring(0, 32) + "...'",
                        name.length(),
                        MAX_HEADER_NAME);
            }
            for (int i = 0; i < name.length(); i++) {
                if (!isTokenChar(name.charAt(i))) {
                    throw new OutboxValidationException(
                            "OutboxEvent.headers",
                            null,
                            "OutboxEvent.headers name '" + printable(name) + "' has the character '"
                                    + printable(String.valueOf(name.charAt(i)))
                                    + "' at " + i + "; a name may hold letters, digits and !#$%&'*+.^_`|~-");
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

    private static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+.^_`|~-".indexOf(c) >= 0;
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

    private static String printable(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            out.append(c < 0x20 || c == 0x7F ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return out.toString();
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
