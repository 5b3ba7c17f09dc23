package io.txoutbox.sqs;

import io.txoutbox.internal.transport.ContentTypes;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Turns a claimed event into one entry of a {@code SendMessageBatch} request, as {@link SqsMessages}
 * describes, and measures it the way SQS does: the body's UTF-8 bytes plus, per attribute, the bytes
 * of its name, its data type and its value.
 */
final class Entries {
    /** The longest message group id SQS accepts. */
    static final int MAX_GROUP_ID_LENGTH = 128;

    private static final Set<String> OWN_ATTRIBUTES = new HashSet<>(SqsMessages.ATTRIBUTE_HEADERS);
    private static final int STRING_TYPE_BYTES = SqsMessages.STRING.length();

    private Entries() {}

    /**
     * One encoded event.
     *
     * @param index its position in the batch
     * @param entry the request entry (its id is the index)
     * @param bytes its size as SQS counts it
     * @param groupId its message group id on a FIFO queue, or {@code null}
     */
    record Entry(int index, SendMessageBatchRequestEntry entry, int bytes, String groupId) {}

    /** The encoding of one event: an entry, or why the event can never be sent. */
    record Encoded(Entry entry, String problem) {}

    static Encoded encode(int index, ClaimedEvent event, boolean fifo, int maxMessageBytes) {
        String body;
        if (ContentTypes.isText(event.contentType())) {
            body = ContentTypes.utf8OrNull(event.payload());
            if (body == null) {
                return new Encoded(
                        null,
                        "the payload is not valid UTF-8, yet its content type '" + event.contentType()
                                + "' is text: an SQS body of a text type is the payload as text, and SQS bodies"
                                + " must be text");
            }
        } else {
            body = Base64.getEncoder().encodeToString(event.payload());
        }
        if (body.isEmpty()) {
            return new Encoded(null, "the payload is empty: SQS refuses an empty message body");
        }
        Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
        Map<String, String> rest = new LinkedHashMap<>();
        int bytes = utf8Length(body);
        for (Map.Entry<String, String> h : MessageHeaders.of(event).entrySet()) {
            // SQS refuses an empty attribute value: such a header travels in the JSON attribute.
            if (OWN_ATTRIBUTES.contains(h.getKey()) && !h.getValue().isEmpty()) {
                attributes.put(h.getKey(), string(h.getValue()));
                bytes += attributeBytes(h.getKey(), h.getValue());
            } else {
                rest.put(h.getKey(), h.getValue());
            }
        }
        if (!rest.isEmpty()) {
            String json = SqsMessages.json(rest);
            attributes.put(SqsMessages.HEADERS_ATTRIBUTE, string(json));
            bytes += attributeBytes(SqsMessages.HEADERS_ATTRIBUTE, json);
        }
        if (bytes > maxMessageBytes) {
            return new Encoded(
                    null,
                    "the SQS message is " + bytes + " bytes (body and attributes); the limit is " + maxMessageBytes
                            + " bytes (SqsPublisher.Builder.maxMessageBytes)");
        }
        SendMessageBatchRequestEntry.Builder entry = SendMessageBatchRequestEntry.builder()
                .id(Integer.toString(index))
                .messageBody(body)
                .messageAttributes(attributes);
        String groupId = null;
        if (fifo) {
            groupId = groupId(event.aggregateId());
            entry.messageGroupId(groupId).messageDeduplicationId(event.id().toString());
        }
        return new Encoded(new Entry(index, entry.build(), bytes, groupId), null);
    }

    /**
     * @return the aggregate id when SQS accepts it as a message group id (1-128 printable ASCII
     *     characters), otherwise the hex SHA-256 of its UTF-8 bytes: the same aggregate always gets the
     *     same group
     */
    static String groupId(String aggregateId) {
        if (!aggregateId.isEmpty() && aggregateId.length() <= MAX_GROUP_ID_LENGTH) {
            boolean printable = true;
            for (int i = 0; i < aggregateId.length() && printable; i++) {
                char c = aggregateId.charAt(i);
                printable = c >= 0x21 && c <= 0x7E;
            }
            if (printable) {
                return aggregateId;
            }
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(aggregateId.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static MessageAttributeValue string(String value) {
        return MessageAttributeValue.builder()
                .dataType(SqsMessages.STRING)
                .stringValue(value)
                .build();
    }

    private static int attributeBytes(String name, String value) {
        return utf8Length(name) + STRING_TYPE_BYTES + utf8Length(value);
    }

    private static int utf8Length(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
