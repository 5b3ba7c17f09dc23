package io.txoutbox.redis;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract against the local Redis: what arrived is read back with XRANGE from the start. */
class RedisStreamsPublisherContractTest extends PublisherContract {
    private static HikariDataSource postgres;
    private static LocalRedis redis;

    private final List<String> keys = new ArrayList<>();

    @BeforeAll
    static void open() {
        postgres = LocalRedis.postgres();
        redis = new LocalRedis();
    }

    @AfterAll
    static void close() {
        redis.close();
        postgres.close();
    }

    @AfterEach
    void deleteStreams() {
        keys.forEach(redis::delete);
        keys.clear();
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return new InetSocketAddress(LocalRedis.HOST, LocalRedis.PORT);
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return RedisStreamsPublisher.builder()
                .uri("redis://" + host + ":" + port)
                .commandTimeout(Duration.ofSeconds(2))
                .build();
    }

    @Override
    protected Received subscribe(String destination) {
        keys.add(destination);
        return () -> redis.read(destination);
    }

    @Override
    protected DataSource outboxDataSource() {
        return postgres;
    }
}
