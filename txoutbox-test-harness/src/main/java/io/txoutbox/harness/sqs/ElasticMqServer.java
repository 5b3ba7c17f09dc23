package io.txoutbox.harness.sqs;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * A real SQS-compatible server, ElasticMQ, in memory, inside this JVM on a free loopback port, with a
 * client of the AWS SDK that talks to it directly (not through a test's proxy). ElasticMQ accepts any
 * credentials; {@link #ACCESS_KEY} and {@link #SECRET_KEY} are what the tests sign with.
 *
 * <pre>{@code
 * try (ElasticMqServer sqs = ElasticMqServer.start()) {
 *     String url = sqs.createQueue(ElasticMqServer.newQueueName("orders-"));
 *     ... SqsPublisher.builder().region(ElasticMqServer.REGION).endpoint(sqs.endpoint()) ...
 * }
 * }</pre>
 *
 * <p>Starting takes a second or two: share one server per test class or run, with queues of each test's
 * own ({@link #newQueueName}).
 */
public final class ElasticMqServer implements AutoCloseable {
    /** The region the server says it is in, and the clients sign for. */
    public static final String REGION = "eu-west-1";
    /** The access key id the tests sign with (any is accepted). */
    public static final String ACCESS_KEY = "test-access-key";
    /** The secret key the tests sign with (any is accepted). */
    public static final String SECRET_KEY = "test-secret-key";

    private static final int RECEIVERS = 8;

    private final SQSRestServer server;
    private final InetSocketAddress address;
    private final SqsAsyncClient client;
    private volatile boolean closed;

    private ElasticMqServer(SQSRestServer server, InetSocketAddress address, SqsAsyncClient client) {
        this.server = server;
        this.address = address;
        this.client = client;
    }

    /**
     * @return a running server on {@code 127.0.0.1} and a free port
     * @throws RuntimeException when ElasticMQ cannot bind or start
     */
    public static ElasticMqServer start() {
        SQSRestServer server = SQSRestServerBuilder.withInterface("127.0.0.1")
                .withDynamicPort()
                .withAWSRegion(REGION)
                .start();
        InetSocketAddress address = new InetSocketAddress(
                "127.0.0.1", server.waitUntilStarted().localAddress().getPort());
        SqsAsyncClient client = SqsAsyncClient.builder()
                .region(Region.of(REGION))
                .endpointOverride(URI.create(endpoint(address.getHostString(), address.getPort())))
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .build();
        return new ElasticMqServer(server, address, client);
    }

    /** @return where the server listens */
    public InetSocketAddress address() {
        return address;
    }

    /** @return the server's endpoint, {@code http://127.0.0.1:port} */
    public String endpoint() {
        return endpoint(address.getHostString(), address.getPort());
    }

    /**
     * @param host a host, for example a proxy's
     * @param port its port
     * @return {@code http://host:port}, an endpoint for an SQS client
     */
    public static String endpoint(String host, int port) {
        return "http://" + host + ":" + port;
    }

    /** @return a client straight to the server, with the test credentials; closed by {@link #close()} */
    public SqsAsyncClient client() {
        return client;
    }

    /**
     * @param name the queue's name
     * @return the URL of a new standard queue
     */
    public String createQueue(String name) {
        return client.createQueue(r -> r.queueName(name)).join().queueUrl();
    }

    /**
     * @param name the queue's name, ending in {@code .fifo}
     * @return the URL of a new FIFO queue that deduplicates by id, not by content
     */
    public String createFifoQueue(String name) {
        return client.createQueue(r -> r.queueName(name)
                        .attributes(Map.of(
                                QueueAttributeName.FIFO_QUEUE, "true",
                                QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false")))
                .join()
                .queueUrl();
    }

    /**
     * Deletes a queue; a failure is ignored (the server keeps everything in memory anyway).
     *
     * @param url the queue's URL
     */
    public void deleteQueue(String url) {
        client.deleteQueue(r -> r.queueUrl(url)).exceptionally(e -> null).join();
    }

    /**
     * Receives every message the queue holds right now, with all its message and system attributes,
     * and deletes them: eight receivers take ten at a time until each gets an empty answer.
     *
     * @param url the queue's URL
     * @return the messages as SQS delivered them, in no particular order
     */
    public List<Message> receiveAll(String url) {
        List<Message> all = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<?>> deletes = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> receivers = new ArrayList<>();
        for (int i = 0; i < RECEIVERS; i++) {
            receivers.add(receive(url, all, deletes));
        }
        CompletableFuture.allOf(receivers.toArray(CompletableFuture[]::new)).join();
        CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).join();
        return new ArrayList<>(all);
    }

    /** One receiver: receives until an answer is empty; a received message stays hidden until deleted. */
    private CompletableFuture<Void> receive(String url, List<Message> all, List<CompletableFuture<?>> deletes) {
        return client.receiveMessage(b -> b.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .waitTimeSeconds(0)
                        .visibilityTimeout(300)
                        .messageAttributeNames("All")
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                .thenCompose(r -> {
                    if (!r.hasMessages() || r.messages().isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    all.addAll(r.messages());
                    deletes.add(deleteReceived(url, r.messages()));
                    return receive(url, all, deletes);
                });
    }

    /**
     * Deletes what one receive gave, so that it does not come back when its visibility timeout ends.
     *
     * @param url the queue's URL
     * @param received the messages of one receive: at most ten, as many as one batch deletes
     * @return the batch delete, to come
     */
    public CompletableFuture<DeleteMessageBatchResponse> deleteReceived(String url, List<Message> received) {
        List<DeleteMessageBatchRequestEntry> delete = new ArrayList<>();
        for (Message m : received) {
            delete.add(DeleteMessageBatchRequestEntry.builder()
                    .id(Integer.toString(delete.size()))
                    .receiptHandle(m.receiptHandle())
                    .build());
        }
        return client.deleteMessageBatch(b -> b.queueUrl(url).entries(delete));
    }

    /**
     * @param prefix the start of the name, for example {@code txoutbox-orders-}
     * @return a queue name no other test uses: the prefix and random hex
     */
    public static String newQueueName(String prefix) {
        return prefix + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    /** Closes the client and stops the server (its queues are gone with it). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        client.close();
        server.stopAndWait();
    }
}
