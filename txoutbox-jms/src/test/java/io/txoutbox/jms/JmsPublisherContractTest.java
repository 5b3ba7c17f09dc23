package io.txoutbox.jms;

import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transport contract against the embedded Artemis broker, over its TCP acceptor with the proxy in
 * between, with asynchronous sends that the broker confirms (a confirmation window). {@link
 * JmsSynchronousContractTest} runs the same contract with synchronous sends.
 */
class JmsPublisherContractTest extends PublisherContract {
    @BeforeAll
    static void start() {
        Artemis.address();
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return Artemis.address();
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return JmsPublisher.builder()
                .connectionFactory(Artemis.factory(host, port, true))
                .asyncSend(true)
                .publishTimeout(Duration.ofSeconds(2)) // below the contract relay's 3 s
                .build();
    }

    @Override
    protected Received subscribe(String destination) throws Exception {
        return Inbox.queue(destination);
    }
}
