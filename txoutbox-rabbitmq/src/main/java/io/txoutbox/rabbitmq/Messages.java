package io.txoutbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/** Maps a claimed event to an AMQP message: properties, headers and the routing key's limits. */
final class Messages {
    /** AMQP short strings (routing keys, exchange names, most properties) hold at most 255 bytes. */
    static final int MAX_SHORT_STRING_BYTES = 255;

    private static final int PERSISTENT = 2;

    private Messages() {}

    static AMQP.BasicProperties properties(ClaimedEvent event) {
        Map<String, Object> headers = new LinkedHashMap<>(MessageHeaders.of(event));
        return new AMQP.BasicProperties.Builder()
                .messageId(event.id().toString())
                .contentType(shortString(event.contentType()))
                .type(shortString(event.eventType()))
                .correlationId(shortString(event.correlationId()))
                .deliveryMode(PERSISTENT)
                .timestamp(event.createdAt() == null ? null : Date.from(event.createdAt()))
                .headers(headers)
                .build();
    }

    /**
     * @return why this routing key can never be published, or {@code null} when it can
     */
    static String routingKeyProblem(String routingKey) {
        if (routingKey == null) {
            return "the router gave no routing key";
        }
        int bytes = routingKey.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SHORT_STRING_BYTES) {
            return "routing key is " + bytes + " bytes; AMQP allows at most " + MAX_SHORT_STRING_BYTES;
        }
        return null;
    }

    static String describeExchange(String exchange) {
        return exchange.isEmpty() ? "(default)" : exchange;
    }

    /** A property that does not fit an AMQP short string is left out: the same value is in the headers. */
    private static String shortString(String value) {
        if (value == null || value.getBytes(StandardCharsets.UTF_8).length > MAX_SHORT_STRING_BYTES) {
            return null;
        }
        return value;
    }
}
