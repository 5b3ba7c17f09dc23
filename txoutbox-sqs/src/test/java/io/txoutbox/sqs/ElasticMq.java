package io.txoutbox.sqs;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * One ElasticMQ server (a real SQS-compatible server, in memory) for the whole test run, on a free
 * loopback port, and a client that talks to it directly (not through a test's proxy).
 */
final class ElasticMq {
    static final String REGION = "eu-west-1";
    static final String ACCESS_KEY = "test-access-key";
    static final String SECRET_KEY = "test-secret-key";

    private static SQSRestServer server;
    private static InetSocketAddress address;
    private static SqsAsyncClient admin;

    private ElasticMq() {}

    static synchronized InetSocketAddress address() {
        if (server == null) {
            server = SQSRestServerBuilder.withInterface("127.0.0.1")
                    .withDynamicPort()
                    .withAWSRegion(REGION)
                    .start();
            address = new InetSocketAddress(
                    "127.0.0.1", server.waitUntilStarted().localAddress().getPort());
            admin = SqsAsyncClient.builder()
                    .region(Region.of(REGION))
                    .endpointOverride(endpoint(address.getHostString(), address.getPort()))
                    .credentialsProvider(
                            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                    .build();
            Runtime.getRuntime().addShutdownHook(new Thread(ElasticMq::stop, "elasticmq-stop"));
        }
        return address;
    }

    static synchronized SqsAsyncClient admin() {
        address();
        return admin;
    }

    static URI endpoint(String host, int port) {
        return URI.create("http://" + host + ":" + port);
    }

    /** @return a publisher builder for the server itself, with the test credentials */
    static SqsPublisher.Builder direct() {
        InetSocketAddress a = address();
        return SqsPublisher.builder()
                .region(REGION)
                .endpoint(endpoint(a.getHostString(), a.getPort()).toString())
                .credentials(ACCESS_KEY, SECRET_KEY);
    }

    /** @return the URL of a new standard queue */
    static String createQueue(String name) {
        return admin().createQueue(r -> r.queueName(name)).join().queueUrl();
    }

    /** @return the URL of a new FIFO queue (deduplication by id, not by content) */
    static String createFifoQueue(String name) {
        return admin().createQueue(r -> r.queueName(name)
                        .attributes(Map.of(
                                QueueAttributeName.FIFO_QUEUE, "true",
                                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false")))
                .join()
                .queueUrl();
    }

    static void deleteQueue(String url) {
        admin().deleteQueue(r -> r.queueUrl(url)).join();
    }

    static String randomName(String prefix) {
        return prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    private static synchronized void stop() {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.stopAndWait();
        }
    }
}
