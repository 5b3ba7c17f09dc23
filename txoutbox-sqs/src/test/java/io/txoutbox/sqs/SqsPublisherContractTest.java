package io.txoutbox.sqs;

import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transport contract against ElasticMQ, with the TCP proxy between the publisher and the server.
 * Each test's destination is a standard queue of its own, deleted afterwards.
 */
class SqsPublisherContractTest extends PublisherContract {
    private final List<String> queues = new ArrayList<>();

    @BeforeAll
    static void start() {
        ElasticMq.address();
    }

    @AfterEach
    void deleteQueues() {
        queues.forEach(ElasticMq::deleteQueue);
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return ElasticMq.address();
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return SqsPublisher.builder()
                .region(ElasticMq.REGION)
                .endpoint(ElasticMq.endpoint(host, port).toString())
                .credentials(ElasticMq.ACCESS_KEY, ElasticMq.SECRET_KEY)
                .publishTimeout(Duration.ofSeconds(2)) // below the contract relay's 3 s
                .build();
    }

    @Override
    protected Received subscribe(String destination) {
        String url = ElasticMq.createQueue(destination);
        queues.add(url);
        return new QueueReader(url);
    }
}
