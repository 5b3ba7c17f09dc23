package io.txoutbox.webhook;

import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transport contract against a real HTTP receiver on loopback that verifies every signature: the proxy
 * sits between the publisher and the receiver, each test POSTs to a path of its own, and what "arrived" is
 * what the receiver verified and answered 2xx.
 */
class WebhookPublisherContractTest extends PublisherContract {
    private static final String SECRET = "whsec_dHhvdXRib3gtY29udHJhY3Qtc2VjcmV0LTMyYnl0ZXMh";

    private static TestReceiver receiver;

    @BeforeAll
    static void startReceiver() throws Exception {
        receiver = new TestReceiver(WebhookVerifier.builder().secret(SECRET).build());
    }

    @AfterAll
    static void stopReceiver() {
        receiver.close();
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return new InetSocketAddress("127.0.0.1", receiver.port());
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return WebhookPublisher.builder()
                .endpoint(WebhookEndpoint.builder("http://" + host + ":" + port + "/hooks/" + destination())
                        .secret(SECRET)
                        .build())
                // The receiver and the proxy are on loopback, which is refused by default.
                .allowPrivateNetworks(true)
                .connectTimeout(Duration.ofSeconds(2))
                .requestTimeout(Duration.ofSeconds(2))
                .build();
    }

    @Override
    protected Received subscribe(String destination) {
        String path = "/hooks/" + destination;
        return () -> receiver.acceptedAt(path).stream()
                .map(r -> new Message(r.headers(), r.body()))
                .toList();
    }
}
