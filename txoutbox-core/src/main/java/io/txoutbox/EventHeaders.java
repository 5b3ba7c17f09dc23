package io.txoutbox;

/**
 * The names of the headers txoutbox itself writes and transports carry on every message. Lower case,
 * as HTTP/2 and most brokers prefer.
 */
public final class EventHeaders {
    /** The correlation id: ties together everything caused by one request. */
    public static final String CORRELATION_ID = "correlation-id";
    /** The causation id: the message or command that caused this event. */
    public static final String CAUSATION_ID = "causation-id";
    /** The W3C trace context {@code traceparent}. */
    public static final String TRACEPARENT = "traceparent";
    /** The W3C trace context {@code tracestate}. */
    public static final String TRACESTATE = "tracestate";

    /** The longest header name. */
    public static final int MAX_NAME_LENGTH = 128;

    private static final String NAME_SYMBOLS = "!#$%&'*+.^_`|~-";

    private EventHeaders() {}

    /**
     * The rule for header names, that of an HTTP token: 1 to {@value #MAX_NAME_LENGTH} letters, digits
     * and {@code !#$%&'*+.^_`|~-}. Only a name that passes it is ever quoted in a message; any other text
     * in its place may be anything (a value, a secret), so it is named by its position instead.
     *
     * @param name a header name, or {@code null}
     * @return whether it is a valid header name
     */
    public static boolean isValidName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isNameChar(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || NAME_SYMBOLS.indexOf(c) >= 0;
    }
}
