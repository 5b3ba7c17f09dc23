package io.txoutbox.jms;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How an outbox event's headers become JMS message properties, and how a consumer reads them back.
 *
 * <p>JMS property names must be Java identifiers, must not start with {@code JMS} and must not be a
 * selector keyword. Header names are not ({@code event-id}, {@code content-type}), so every header is
 * a string property whose name is mapped, reversibly, by {@link #propertyName(String)}:
 *
 * <ul>
 *   <li>ASCII letters and digits stay as they are, and {@code -} becomes {@code _}: {@code event-id}
 *       is {@code event_id}, {@code content-type} is {@code content_type}, {@code traceparent} stays;
 *   <li>every other character, {@code _} itself included, becomes {@code $} and its four hex digits
 *       (UTF-16): {@code x.trace_id} is {@code x$002etrace$005fid};
 *   <li>the first character is escaped the same way when it is a digit, or when the name would start
 *       with {@code JMS} or be a selector keyword ({@code NULL}, {@code TRUE}, {@code FALSE}, {@code
 *       NOT}, {@code AND}, {@code OR}, {@code BETWEEN}, {@code LIKE}, {@code IN}, {@code IS}, {@code
 *       ESCAPE}), in any case: {@code 1st} is {@code $0031st}, {@code in} is {@code $0069n}.
 * </ul>
 *
 * <p>{@link #headerName(String)} undoes it exactly, so a consumer gets the original names back. The
 * event id is the property {@value #EVENT_ID_PROPERTY}: consumers deduplicate on it, not on {@code
 * JMSMessageID}, which the provider assigns anew on every send.
 *
 * <p>The body is a {@code TextMessage} when the content type is text ({@code text/*}, JSON, XML) and
 * the payload is valid UTF-8; otherwise a {@code BytesMessage} with the payload's bytes. {@link
 * #payloadOf(Message)} gives the exact bytes back either way.
 */
public final class JmsHeaders {
    /** The property that carries the event id: {@code event-id}, mapped. */
    public static final String EVENT_ID_PROPERTY = "event_id";

    /** The property that carries the payload's media type: {@code content-type}, mapped. */
    public static final String CONTENT_TYPE_PROPERTY = "content_type";

    private static final Set<String> KEYWORDS =
            Set.of("null", "true", "false", "not", "and", "or", "between", "like", "in", "is", "escape");

    private JmsHeaders() {}

    /**
     * @param header a header name, not empty
     * @return the JMS property name that carries it
     * @throws IllegalArgumentException for an empty name, which no property can carry
     */
    public static String propertyName(String header) {
        if (header == null || header.isEmpty()) {
            throw new IllegalArgumentException("an empty header name cannot be a JMS property");
        }
        StringBuilder name = new StringBuilder(header.length() + 8);
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (isAsciiLetterOrDigit(c) && !(i == 0 && c >= '0' && c <= '9')) {
                name.append(c);
            } else if (c == '-') {
                name.append('_');
            } else {
                escape(name, c);
            }
        }
        String lower = name.toString().toLowerCase(Locale.ROOT);
        if (lower.startsWith("jms") || KEYWORDS.contains(lower)) {
            StringBuilder escaped = new StringBuilder(name.length() + 5);
            escape(escaped, name.charAt(0));
            return escaped.append(name, 1, name.length()).toString();
        }
        return name.toString();
    }

    /**
     * @param property a property name made by {@link #propertyName(String)}
     * @return the header name it carries
     * @throws IllegalArgumentException when the name is not such a mapping (a bad {@code $} escape)
     */
    public static String headerName(String property) {
        StringBuilder header = new StringBuilder(property.length());
        for (int i = 0; i < property.length(); i++) {
            char c = property.charAt(i);
            if (c == '_') {
                header.append('-');
            } else if (c == '$') {
                String hex = i + 4 < property.length() ? property.substring(i + 1, i + 5) : "";
                if (hex.length() != 4 || !hex.chars().allMatch(h -> Character.digit(h, 16) >= 0)) {
                    throw new IllegalArgumentException(
                            "property '" + property + "' has a $ that is not followed by four hex digits");
                }
                header.append((char) Integer.parseInt(hex, 16));
                i += 4;
            } else {
                header.append(c);
            }
        }
        return header.toString();
    }

    /**
     * @param message a message this transport sent
     * @return its headers: every string property, with its header name; properties whose names start
     *     with {@code JMS} (the provider's own) are left out
     * @throws JMSException when the provider cannot read the properties
     */
    public static Map<String, String> headersOf(Message message) throws JMSException {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Enumeration<?> names = message.getPropertyNames(); names != null && names.hasMoreElements(); ) {
            if (!(names.nextElement() instanceof String property) || property.startsWith("JMS") || property.isEmpty()) {
                continue;
            }
            Object value = message.getObjectProperty(property);
            if (value instanceof String text) {
                String header;
                try {
                    header = headerName(property);
                } catch (IllegalArgumentException notOurs) {
                    continue; // a property another producer set, not one of the mapped headers
                }
                headers.put(header, text);
            }
        }
        return headers;
    }

    /**
     * @param message a message this transport sent
     * @return the payload exactly as appended: a text message's UTF-8 bytes, a bytes message's bytes
     * @throws JMSException when the provider cannot read the body
     * @throws IllegalArgumentException for any other kind of message
     */
    public static byte[] payloadOf(Message message) throws JMSException {
        if (message instanceof TextMessage text) {
            String body = text.getText();
            return body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        }
        if (message instanceof BytesMessage bytes) {
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.reset();
            bytes.readBytes(body);
            return body;
        }
        throw new IllegalArgumentException(
                "not a message of this transport: " + message.getClass().getName() + " is neither text nor bytes");
    }

    private static boolean isAsciiLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static void escape(StringBuilder to, char c) {
        to.append('$').append(String.format(Locale.ROOT, "%04x", (int) c));
    }
}
