package io.txoutbox.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What the admin API reads of a request, hostile until proven otherwise: a JSON body of bounded size, the
 * query parameters and path segments, percent-decoded as strict UTF-8. Each refusal is an {@link
 * AdminServer.HttpError} that names what was wrong.
 */
final class AdminRequests {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The largest request body read: 64 KiB, far more than any admin request needs. */
    static final int MAX_BODY = 64 * 1024;

    private AdminRequests() {}

    static JsonNode body(Exchange ex) throws IOException {
        if (ex.declaredLength() > MAX_BODY) {
            // Refused before a byte is read: a huge body cannot hold a worker while it trickles in.
            throw new AdminServer.HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
        }
        byte[] bytes = ex.body(MAX_BODY);
        if (bytes.length > MAX_BODY) {
            throw new AdminServer.HttpError(413, "the request body is larger than " + MAX_BODY + " bytes");
        }
        if (bytes.length == 0) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode n = JSON.readTree(bytes);
            if (n == null || !n.isObject()) {
                throw new AdminServer.HttpError(400, "the request body must be a JSON object");
            }
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // Jackson's message quotes the offending token, which may be anything the client sent: the
            // position only.
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
            throw new AdminServer.HttpError(
                    400,
                    "the request body is not valid JSON"
                            + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        }
    }

    static Map<String, String> query(Exchange ex) {
        Map<String, String> out = new HashMap<>();
        String raw = ex.rawQuery();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq), "a query parameter's name");
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1), "query parameter '" + k + "'");
            out.put(k, v);
        }
        return out;
    }

    /**
     * Decodes percent-escapes (and {@code +} as a space, as forms send it) into UTF-8 text. A malformed
     * escape ({@code %zz}, a {@code %} at the end) or bytes that are not UTF-8 are the client's mistake: a
     * 400 naming where they are, never an internal error, and never text silently changed to U+FFFD.
     *
     * @param where what the text is, for the message: {@code query parameter 'type'}
     */
    static String decode(String text, String where) {
        if (text.indexOf('%') < 0 && text.indexOf('+') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                int hi = i + 1 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                int lo = i + 2 < text.length() ? Character.digit(text.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw new AdminServer.HttpError(
                            400,
                            where + " has a malformed percent-escape at character " + (i + 1)
                                    + ": % must be followed by two hexadecimal digits");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else if (c == '+') {
                bytes.write(' ');
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < text.length() ? i + 2 : i + 1;
                bytes.writeBytes(text.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new AdminServer.HttpError(400, where + " is not UTF-8 once its percent-escapes are decoded");
        }
    }
}
