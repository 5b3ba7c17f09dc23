package io.txoutbox.redis;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.txoutbox.test.LocalPostgres;
import io.txoutbox.test.transport.PublisherContract.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The local Redis and PostgreSQL the tests use; a direct connection that reads streams back. */
final class LocalRedis implements AutoCloseable {
    static final String HOST = "127.0.0.1";
    static final int PORT = 6379;

    private final RedisClient client = RedisClient.create(RedisURI.create(HOST, PORT));
    private final StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);

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

    static HikariDataSource postgres() {
        HikariConfig config = LocalPostgres.config("redis-contract", 4);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
