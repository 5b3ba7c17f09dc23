package io.txoutbox.jms;

import io.txoutbox.spi.Publisher;
import java.time.Duration;

/**
 * The transport contract with synchronous sends (the default), against the embedded Artemis broker: the
 * set-up of {@link JmsPublisherContractTest}, another publisher.
 */
class JmsSynchronousContractTest extends JmsPublisherContractTest {
    @Override
    protected Publisher newPublisher(String host, int port) {
        return JmsPublisher.builder()
                .connectionFactory(Artemis.factory(host, port, false))
                .publishTimeout(Duration.ofSeconds(2)) // below the contract relay's 3 s
                .build();
    }
}
