package io.txoutbox.mqtt;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.txoutbox.internal.transport.ContentTypes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The JSON envelope that carries an event's headers over MQTT 3.1.1, which has no message headers of its
 * own. One UTF-8 JSON object, written without whitespace:
 *
 * <pre>{@code
 * {"headers":{"event-id":"0190...","event-type":"order.placed",...},"payload":{"total":12}}
 * {"headers":{"event-id":"0190...","content-type":"application/x-protobuf",...},"payloadBase64":"CgNhYmM="}
 * }</pre>
 *
 * <ul>
 *   <li>{@code headers}: an object of string values, the event's {@code MessageHeaders} ({@code event-id},
 *       {@code event-type}, {@code event-version}, {@code aggregate-type}, {@code aggregate-id},
 *       {@code content-type}, {@code tenant-id}, correlation and trace context, then its own headers);
 *   <li>{@code payload}: the payload itself, embedded as raw JSON, when its content type is JSON
 *       ({@code application/json} or {@code +json}, UTF-8) and its bytes are one valid JSON value with no
 *       surrounding whitespace: the bytes between {@code "payload":} and the next member are the payload's
 *       bytes, exactly;
 *   <li>{@code payloadBase64}: otherwise (binary, text, or JSON that does not qualify), the payload in
 *       standard base64 (RFC 4648, padded, no line breaks).
 * </ul>
 *
 * <p>Exactly one of {@code payload} and {@code payloadBase64} is present. Readers ignore members they do
 * not know, so members may be added later. {@link #decode(byte[])} reads it back with the payload's bytes
 * exact; any JSON library reads it too.
 *
 * <p>{@link #toString()} never prints the payload or header values.
 *
 * @param headers the headers, in the order they were written
 * @param payload the payload bytes
 */
public record MqttEnvelope(Map<String, String> headers, byte[] payload) {
    static final String HEADERS = "headers";
    static final String PAYLOAD = "payload";
    static final String PAYLOAD_BASE64 = "payloadBase64";

    /** Payloads may be large: lift Jackson's default bounds on one string, keep those on nesting. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxDocumentLength(-1)
                    .build())
            .build();

    /** Copies the headers; checks nothing is missing. */
    public MqttEnvelope {
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(headers, "headers")));
        Objects.requireNonNull(payload, "payload");
    }

    /**
     * Reads an envelope as {@link MqttPublisher} writes it.
     *
     * @param message the MQTT message's payload
     * @return the headers and the payload's exact bytes
     * @throws IllegalArgumentException when the message is not such an envelope (not JSON, no headers
     *     object, a header that is not a string, or no payload member)
     */
    public static MqttEnvelope decode(byte[] message) {
        Objects.requireNonNull(message, "message");
        Map<String, String> headers = null;
        byte[] payload = null;
        try (JsonParser p = JSON.createParser(message)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw notAnEnvelope("it is not a JSON object");
            }
            long rawStart = -1;
            JsonToken token;
            while ((token = p.nextToken()) != null) {
                if (rawStart >= 0) {
                    // The raw payload ends where the next member (or the end of the object) begins, less the
                    // separator: its own bytes never end in whitespace or a comma.
                    int end = (int) p.currentTokenLocation().getByteOffset();
                    end = skipBack(message, end, rawStart);
                    payload = Arrays.copyOfRange(message, (int) rawStart, end);
                    rawStart = -1;
                }
                if (token == JsonToken.END_OBJECT) {
                    break;
                }
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case HEADERS -> headers = readHeaders(p, value);
                    case PAYLOAD -> {
                        rawStart = p.currentTokenLocation().getByteOffset();
                        p.skipChildren();
                    }
                    case PAYLOAD_BASE64 -> {
                        if (value != JsonToken.VALUE_STRING) {
                            throw notAnEnvelope("payloadBase64 is not a string");
                        }
                        payload = p.getBinaryValue();
                    }
                    default -> p.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            // Jackson's own message quotes the offending token, which may be payload text: give the position
            // only, and no cause that would carry the quote into a stack trace.
            throw notAnEnvelope("it is not valid JSON (at byte offset "
                    + (e.getLocation() == null ? "unknown" : e.getLocation().getByteOffset()) + ")");
        } catch (IOException e) {
            throw notAnEnvelope("it cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        if (headers == null) {
            throw notAnEnvelope("it has no headers object");
        }
        if (payload == null) {
            throw notAnEnvelope("it has neither payload nor payloadBase64");
        }
        return new MqttEnvelope(headers, payload);
    }

    /** @return the payload bytes (not a copy: do not modify them) */
    @Override
    public byte[] payload() {
        return payload;
    }

    /**
     * @param name a header name, for example {@code event-id}
     * @return its value, or {@code null}
     */
    public String header(String name) {
        return headers.get(name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MqttEnvelope other
                && headers.equals(other.headers)
                && Arrays.equals(payload, other.payload);
    }

    @Override
    public int hashCode() {
        return 31 * headers.hashCode() + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "MqttEnvelope[headers=" + headers.keySet() + ", payload=" + payload.length + " bytes]";
    }

    /**
     * @param headers the message headers
     * @param payload the payload bytes
     * @param contentType the payload's media type
     * @return the envelope, UTF-8 JSON
     */
    static byte[] encode(Map<String, String> headers, byte[] payload, String contentType) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length * 4 / 3 + 64 * headers.size() + 64);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeObjectFieldStart(HEADERS);
            for (Map.Entry<String, String> header : headers.entrySet()) {
                g.writeStringField(header.getKey(), header.getValue());
            }
            g.writeEndObject();
            String json = embeddableJson(payload, contentType);
            if (json != null) {
                g.writeFieldName(PAYLOAD);
                g.writeRawValue(json);
            } else {
                g.writeFieldName(PAYLOAD_BASE64);
                g.writeBinary(payload);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing an MQTT envelope to memory failed", e);
        }
        return out.toByteArray();
    }

    /**
     * @return the payload as text when it may be embedded as raw JSON with its bytes kept exactly, else
     *     {@code null}
     */
    static String embeddableJson(byte[] payload, String contentType) {
        if (!isJson(contentType) || payload.length == 0) {
            return null;
        }
        if (isWhitespace(payload[0]) || isWhitespace(payload[payload.length - 1])) {
            return null;
        }
        String text = ContentTypes.utf8OrNull(payload);
        if (text == null) {
            return null;
        }
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() == null) {
                return null;
            }
            p.skipChildren();
            return p.nextToken() == null ? text : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String[] parts = contentType.split(";");
        String type = parts[0].trim().toLowerCase(Locale.ROOT);
        if (!type.equals("application/json") && !type.endsWith("+json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String[] param = parts[i].split("=", 2);
            if (param[0].trim().equalsIgnoreCase("charset")
                    && (param.length < 2 || !param[1].trim().replace("\"", "").equalsIgnoreCase("utf-8"))) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, String> readHeaders(JsonParser p, JsonToken start) throws IOException {
        if (start != JsonToken.START_OBJECT) {
            throw notAnEnvelope("headers is not an object");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                throw notAnEnvelope("header '" + name + "' is not a string");
            }
            headers.put(name, p.getText());
        }
        return headers;
    }

    private static int skipBack(byte[] message, int end, long start) {
        int i = end;
        while (i > start && isWhitespace(message[i - 1])) {
            i--;
        }
        if (i > start && message[i - 1] == ',') {
            i--;
        }
        while (i > start && isWhitespace(message[i - 1])) {
            i--;
        }
        return i;
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    private static IllegalArgumentException notAnEnvelope(String why) {
        return new IllegalArgumentException("not a txoutbox MQTT envelope: " + why);
    }
}
