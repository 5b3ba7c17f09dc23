package io.txoutbox.jdbc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.txoutbox.EventHeaders;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The headers column: a flat JSON object of strings. Numbers and booleans written by others become text. */
final class HeadersJson {
    private static final JsonFactory JSON = new JsonFactory();

    private HeadersJson() {}

    static String write(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return "{}";
        }
        StringWriter out = new StringWriter(64 * headers.size());
        try (JsonGenerator gen = JSON.createGenerator(out)) {
            gen.writeStartObject();
            for (Map.Entry<String, String> h : headers.entrySet()) {
                gen.writeStringField(h.getKey(), h.getValue());
            }
            gen.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * @throws IllegalArgumentException when the text is not a flat JSON object
     */
    static Map<String, String> read(String json) {
        if (json == null || json.isEmpty() || json.equals("{}")) {
            return Map.of();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("headers is not a JSON object");
            }
            int entry = 0;
            for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
                entry++;
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    throw new IllegalArgumentException("headers " + describe(name, entry) + " is a nested " + value
                            + "; header values must be strings");
                }
                if (value != JsonToken.VALUE_NULL) {
                    headers.put(name, parser.getText());
                }
            }
        } catch (JsonProcessingException e) {
            // Not Jackson's message: it quotes the source (an unrecognized token, the text around the
            // error), which holds header values.
            throw new IllegalArgumentException("headers is not valid JSON"
                    + (e.getLocation() == null
                            ? ""
                            : " (at character " + e.getLocation().getCharOffset() + ")"));
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "headers could not be read: " + e.getClass().getSimpleName());
        }
        return headers;
    }

    /** A valid name is quoted; any other text in its place may be a value or a secret, so it is counted. */
    private static String describe(String name, int entry) {
        return EventHeaders.isValidName(name) ? "'" + name + "'" : "entry " + entry + " (not a valid name)";
    }
}
