package io.txoutbox.internal.transport;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Which payloads travel as text: a text content type and bytes that are valid UTF-8. */
public final class ContentTypes {
    private ContentTypes() {}

    /**
     * @param contentType the event's content type, or {@code null}
     * @return whether it is text: JSON, XML or {@code text/*}, whatever its parameters
     */
    public static boolean isText(String contentType) {
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

    /**
     * @param bytes the payload
     * @return the bytes as text, or {@code null} when they are not valid UTF-8 (never replaced)
     */
    public static String utf8OrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
