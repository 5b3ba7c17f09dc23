package io.txoutbox.sqs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.txoutbox.internal.transport.ContentTypes;
import io.txoutbox.spi.MessageHeaders;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * How an outbox event looks as an SQS message, and how a consumer reads it back.
 *
 * <p>SQS allows at most {@value #MAX_ATTRIBUTES} message attributes, so the headers are split:
 *
 * <ul>
 *   <li>the headers named in {@link #ATTRIBUTE_HEADERS} (event id, type and version, aggregate type
 *       and id, tenant, content type, correlation id, {@code traceparent}) are String attributes of
 *       their own, when the event has them with a non-empty value;
 *   <li>every other header (causation id, {@code tracestate}, the event's own headers, and a standard
 *       one whose value is empty) goes into one String attribute, {@value #HEADERS_ATTRIBUTE}: a JSON
 *       object of name to value, written in ASCII (other characters as {@code \\uXXXX} escapes). It is
 *       left out when there is nothing to put in it.
 * </ul>
 *
 * <p>So a message carries at most ten attributes, and {@link #headersOf(Message)} gives back exactly
 * the event's headers. The body is the payload as text when the content type is text ({@code
 * text/*}, JSON, XML: {@link #isTextBody(String)}), and otherwise the payload in standard Base64,
 * because an SQS body must be text. Receive with {@code messageAttributeNames("All")} to get the
 * attributes.
 */
public final class SqsMessages {
    /** SQS's limit of message attributes per message. */
    public static final int MAX_ATTRIBUTES = 10;

    /** The one attribute that holds, as a JSON object, the headers without an attribute of their own. */
    public static final String HEADERS_ATTRIBUTE = "txoutbox-headers";

    /** The headers that are attributes of their own: nine, so that {@link #HEADERS_ATTRIBUTE} is the tenth. */
    public static final List<String> ATTRIBUTE_HEADERS = List.of(
            MessageHeaders.EVENT_ID,
            MessageHeaders.EVENT_TYPE,
            MessageHeaders.EVENT_VERSION,
            MessageHeaders.AGGREGATE_TYPE,
            MessageHeaders.AGGREGATE_ID,
            MessageHeaders.TENANT_ID,
            MessageHeaders.CONTENT_TYPE,
            MessageHeaders.CORRELATION_ID,
            MessageHeaders.TRACEPARENT);

    static final String STRING = "String";

    private static final JsonFactory JSON =
            JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    private SqsMessages() {}

    /**
     * @param contentType a payload's media type
     * @return whether a payload of that type is the message body as it is (UTF-8 text): {@code text/*},
     *     {@code application/json}, {@code application/*+json}, {@code application/xml}, {@code
     *     application/*+xml}; otherwise the body is the payload in Base64
     */
    public static boolean isTextBody(String contentType) {
        return ContentTypes.isText(contentType);
    }

    /**
     * @param message a message as SQS delivered it, received with all message attributes
     * @return the event's headers: the attributes of their own and those in {@link #HEADERS_ATTRIBUTE}
     * @throws IllegalArgumentException when {@link #HEADERS_ATTRIBUTE} is not a JSON object of strings
     */
    public static Map<String, String> headersOf(Message message) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<String, MessageAttributeValue> a :
                message.messageAttributes().entrySet()) {
            if (!a.getKey().equals(HEADERS_ATTRIBUTE) && a.getValue().stringValue() != null) {
                headers.put(a.getKey(), a.getValue().stringValue());
            }
        }
        MessageAttributeValue rest = message.messageAttributes().get(HEADERS_ATTRIBUTE);
        if (rest != null && rest.stringValue() != null) {
            headers.putAll(parse(rest.stringValue()));
        }
        return headers;
    }

    /**
     * @param message a message as SQS delivered it, received with all message attributes
     * @return the payload bytes exactly as appended: the body's UTF-8 bytes for a text content type,
     *     the Base64-decoded body otherwise
     * @throws IllegalArgumentException when a non-text body is not Base64
     */
    public static byte[] payloadOf(Message message) {
        MessageAttributeValue type = message.messageAttributes().get(MessageHeaders.CONTENT_TYPE);
        String contentType =
                type != null ? type.stringValue() : headersOf(message).get(MessageHeaders.CONTENT_TYPE);
        if (isTextBody(contentType)) {
            return message.body().getBytes(StandardCharsets.UTF_8);
        }
        return Base64.getDecoder().decode(message.body());
    }

    static String json(Map<String, String> headers) {
        StringWriter out = new StringWriter();
        try (var generator = JSON.createGenerator(out)) {
            generator.writeStartObject();
            for (Map.Entry<String, String> h : headers.entrySet()) {
                generator.writeStringField(h.getKey(), h.getValue());
            }
            generator.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to a string cannot fail", e);
        }
        return out.toString();
    }

    private static Map<String, String> parse(String json) {
        Map<String, String> headers = new LinkedHashMap<>();
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw notHeaders("not a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                if (parser.nextToken() != JsonToken.VALUE_STRING) {
                    throw notHeaders("the value of '" + name + "' is not a string");
                }
                headers.put(name, parser.getText());
            }
        } catch (IOException e) {
            // Not chained: the parser's message quotes the text, and header values stay out of exceptions.
            throw notHeaders("not valid JSON");
        }
        return headers;
    }

    private static IllegalArgumentException notHeaders(String why) {
        return new IllegalArgumentException(HEADERS_ATTRIBUTE + " is " + why + "; expected an object of strings");
    }
}
