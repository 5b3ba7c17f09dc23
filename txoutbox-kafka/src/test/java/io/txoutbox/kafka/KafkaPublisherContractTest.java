package io.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.harness.kafka.SharedKafka;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The transport contract against a real KRaft broker. The publisher reaches the broker only through
 * the contract's proxy: the broker's {@code PROXIED} listener advertises the proxy's port, so even the
 * connections the producer opens after bootstrap pass through it, and a cut really cuts.
 */
@ExtendWith(SharedKafka.class)
class KafkaPublisherContractTest extends PublisherContract {
    @Override
    protected InetSocketAddress brokerAddress() {
        return SharedKafka.broker().proxiedTarget();
    }

    @Override
    protected int proxyPort() {
        return SharedKafka.broker().proxyPort();
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        // Each event reports its own outcome within the outage test's 3 s publish timeout.
        return KafkaPublisher.builder()
                .bootstrapServers(host + ":" + port)
                .requestTimeout(Duration.ofSeconds(2))
                .deliveryTimeout(Duration.ofMillis(2_500))
                .build();
    }

    @Override
    protected Received subscribe(String destination) throws Exception {
        SharedKafka.broker().createTopic(destination, 1);
        return new TopicReader(SharedKafka.broker().bootstrapServers(), destination);
    }

    @Test
    void the_producer_reaches_the_broker_only_through_the_proxy() throws Exception {
        try (KafkaPublisher publisher = (KafkaPublisher) newPublisher(proxy().host(), proxy().port())) {
            assertThat(publish(publisher, batch(1, destination()))).containsOnly(PublishOutcome.PUBLISHED);
            assertThat(publisher.currentProducer().partitionsFor(destination()))
                    .isNotEmpty()
                    .allSatisfy(p -> assertThat(p.leader().port())
                            .as("the leader the producer sends to")
                            .isEqualTo(proxy().port()));
        }
    }
}
