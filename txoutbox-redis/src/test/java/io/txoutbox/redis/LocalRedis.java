package io.txoutbox.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.txoutbox.test.transport.PublisherContract.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The local Redis the tests use, as an extension of a test class: a direct connection, open for the
 * class, that reads streams back, and deletes the keys each test named with {@link #deleteAfterTest}.
 */
final class LocalRedis implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    static final String HOST = "127.0.0.1";
    static final int PORT = 6379;

    private final List<String> keys = new CopyOnWriteArrayList<>();
    private RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;

    @Override
    public void beforeAll(ExtensionContext context) {
        client = RedisClient.create(RedisURI.create(HOST, PORT));
        connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    /**
     * @param key a key the test writes
     * @return the key, deleted when the test ends
     */
    String deleteAfterTest(String key) {
        keys.add(key);
        return key;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        keys.forEach(this::delete);
        keys.clear();
    }

    RedisCommands<byte[], byte[]> commands() {
        return connection.sync();
    }

    /** @return every entry of the stream, from the start, as the contract's messages */
    List<Message> read(String key) {
        List<Message> messages = new ArrayList<>();
        for (StreamMessage<byte[], byte[]> entry :
                commands().xrange(bytes(key), io.lettuce.core.Range.create("-", "+"))) {
            Map<String, String> headers = new LinkedHashMap<>();
            byte[] payload = null;
            for (Map.Entry<byte[], byte[]> field : entry.getBody().entrySet()) {
                String name = new String(field.getKey(), StandardCharsets.UTF_8);
                if (name.equals(RedisStreamsPublisher.PAYLOAD_FIELD)) {
                    payload = field.getValue();
                } else {
                    headers.put(name, new String(field.getValue(), StandardCharsets.UTF_8));
                }
            }
            messages.add(new Message(headers, payload));
        }
        return messages;
    }

    void delete(String key) {
        commands().del(bytes(key));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        connection.close();
        client.shutdown();
    }
}
