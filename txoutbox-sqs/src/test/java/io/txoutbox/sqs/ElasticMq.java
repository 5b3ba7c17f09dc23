package io.txoutbox.sqs;

import io.txoutbox.harness.sqs.ElasticMqServer;
import java.net.InetSocketAddress;
import java.net.URI;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * The one ElasticMQ server (the harness's {@link ElasticMqServer}) of this module's test run, started
 * by the first test that asks and stopped when the JVM ends, and publisher builders for it.
 */
final class ElasticMq {
    static final String REGION = ElasticMqServer.REGION;
    static final String ACCESS_KEY = ElasticMqServer.ACCESS_KEY;
    static final String SECRET_KEY = ElasticMqServer.SECRET_KEY;

    private static ElasticMqServer server;

    private ElasticMq() {}

    static synchronized ElasticMqServer server() {
        if (server == null) {
            server = ElasticMqServer.start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "elasticmq-stop"));
        }
        return server;
    }

    static InetSocketAddress address() {
        return server().address();
    }

    static SqsAsyncClient admin() {
        return server().client();
    }

    static URI endpoint(String host, int port) {
        return URI.create(ElasticMqServer.endpoint(host, port));
    }

    /** @return a publisher builder for the server itself, with the test credentials */
    static SqsPublisher.Builder direct() {
        return SqsPublisher.builder()
                .region(REGION)
                .endpoint(server().endpoint())
                .credentials(ACCESS_KEY, SECRET_KEY);
    }

    static String createQueue(String name) {
        return server().createQueue(name);
    }

    static String createFifoQueue(String name) {
        return server().createFifoQueue(name);
    }

    static void deleteQueue(String url) {
        server().deleteQueue(url);
    }

    static String randomName(String prefix) {
        return ElasticMqServer.newQueueName(prefix);
    }
}
