package io.txoutbox.webhook;

/**
 * What an HTTP/1.1 header may hold (RFC 9110): a name is a token; a value holds visible characters,
 * spaces and tabs, and Latin-1 bytes above 0x7F, but never CR, LF, NUL or other control characters,
 * which would split the request or forge a header. A header that fails is skipped, never the event.
 */
final class Headers {
    private Headers() {}

    static boolean isValidName(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean token = c >= '0' && c <= '9'
                    || c >= 'a' && c <= 'z'
                    || c >= 'A' && c <= 'Z'
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!token) {
                return false;
            }
        }
        return true;
    }

    static boolean isValidValue(String value) {
        if (value == null) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\t' || c >= 0x20 && c < 0x7F || c >= 0xA0 && c <= 0xFF) {
                continue;
            }
            return false;
        }
        return true;
    }
}
