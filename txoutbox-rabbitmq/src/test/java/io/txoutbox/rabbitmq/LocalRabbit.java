package io.txoutbox.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import io.txoutbox.harness.TestEnv;

/** The RabbitMQ the tests of this module run against: localhost:5672, guest/guest, unless told otherwise. */
final class LocalRabbit {
    static final String HOST = TestEnv.get("TXOUTBOX_RABBIT_HOST", "127.0.0.1");
    static final int PORT = Integer.parseInt(TestEnv.get("TXOUTBOX_RABBIT_PORT", "5672"));

    private LocalRabbit() {}

    /** @return a factory for a test's own connections to it, beside the publisher's */
    static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(HOST);
        factory.setPort(PORT);
        return factory;
    }
}
