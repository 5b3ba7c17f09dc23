package io.txoutbox.mqtt;

import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.eclipse.paho.client.mqttv3.MqttException;

/** The transport contract against the local Mosquitto; a second client subscribed before publishing reads. */
class MqttPublisherContractTest extends PublisherContract {
    @Override
    protected InetSocketAddress brokerAddress() {
        return new InetSocketAddress("127.0.0.1", 1883);
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return MqttPublisher.builder()
                .serverUri("tcp://" + host + ":" + port)
                .completionTimeout(Duration.ofSeconds(2))
                .build();
    }

    @Override
    protected Received subscribe(String destination) throws MqttException {
        return new Subscriber(destination);
    }

    @org.junit.jupiter.api.Test
    void connects_when_built_so_the_first_batch_does_not_pay_for_the_connection_set_up() {
        try (MqttPublisher publisher = (MqttPublisher) newPublisher("127.0.0.1", 1883)) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(publisher::isConnected);
        }
    }
}
