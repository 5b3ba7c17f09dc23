package io.txoutbox.mqtt;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.LocalPostgres;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import javax.sql.DataSource;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract against the local Mosquitto; a second client subscribed before publishing reads. */
class MqttPublisherContractTest extends PublisherContract {
    private static HikariDataSource postgres;

    @BeforeAll
    static void open() {
        HikariConfig config = LocalPostgres.config("mqtt-contract", 4);
        config.setConnectionTimeout(10_000);
        postgres = new HikariDataSource(config);
    }

    @AfterAll
    static void close() {
        postgres.close();
    }

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

    @Override
    protected DataSource outboxDataSource() {
        return postgres;
    }

    @org.junit.jupiter.api.Test
    void connects_when_built_so_the_first_batch_does_not_pay_for_the_connection_set_up() {
        try (MqttPublisher publisher = (MqttPublisher) newPublisher("127.0.0.1", 1883)) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(publisher::isConnected);
        }
    }
}
