package io.txoutbox.jms;

import java.util.Locale;

/** Which content types travel as text: JSON, XML and {@code text/*}, whatever their parameters. */
final class ContentTypes {
    private ContentTypes() {}

    static boolean isText(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.toLowerCase(Locale.ROOT);
        int semi = type.indexOf(';');
        if (semi >= 0) {
            type = type.substring(0, semi);
        }
        type = type.trim();
        return type.startsWith("text/")
                || type.equals("application/json")
                || type.endsWith("+json")
                || type.equals("application/xml")
                || type.endsWith("+xml");
    }
}
