package io.txoutbox.jdbc;

/** Text read from a row, made safe for a log line or an error message: one line, printable, bounded. */
final class LogText {
    private LogText() {}

    /**
     * @param text text from the database, or {@code null}
     * @param max the most characters kept
     * @return the text with control characters, line and paragraph separators and lone surrogates as
     *     {@code \\uXXXX}, backslashes doubled, cut at {@code max} with an ellipsis
     */
    static String escape(String text, int max) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 8);
        for (int i = 0; i < text.length() && out.length() < max; i++) {
            char c = text.charAt(i);
            boolean lone = Character.isSurrogate(c)
                    && !(Character.isHighSurrogate(c)
                            && i + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(i + 1)));
            if (Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1))) {
                lone = false;
            }
            if (c == '\\') {
                out.append("\\\\");
            } else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || lone) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.length() >= max && text.length() > max ? out + "…" : out.toString();
    }
}
