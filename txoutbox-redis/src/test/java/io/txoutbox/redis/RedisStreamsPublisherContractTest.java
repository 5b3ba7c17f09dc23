package io.txoutbox.redis;

import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against the local Redis: what arrived is read back with XRANGE from the start. */
class RedisStreamsPublisherContractTest extends PublisherContract {
    @RegisterExtension
    static final LocalRedis redis = new LocalRedis();

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
        redis.deleteAfterTest(destination);
        return () -> redis.read(destination);
    }
}
