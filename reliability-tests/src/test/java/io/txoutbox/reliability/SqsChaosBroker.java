package io.txoutbox.reliability;

import io.txoutbox.harness.sqs.ElasticMqServer;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.sqs.SqsMessages;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * ElasticMQ in this JVM (the harness's {@link ElasticMqServer}) and one standard queue: it does not
 * deduplicate, so every copy the relays deliver is stored and counted. ElasticMQ keeps its queues in
 * memory, so it cannot be restarted without losing them: an SQS run has no broker restarts (its
 * outages are the proxy's cuts, blackholes and delays).
 */
final class SqsChaosBroker implements ChaosBroker {
    private final String queue;
    private ElasticMqServer server;
    private String url;

    SqsChaosBroker(String runId) {
        this.queue = runId;
    }

    @Override
    public void start() {
        server = ElasticMqServer.start();
        url = server.createQueue(queue);
    }

    @Override
    public int port() {
        return server.address().getPort();
    }

    @Override
    public List<String> relayTarget(String proxyHost, int proxyPort) {
        return List.of("sqs", ElasticMqServer.endpoint(proxyHost, proxyPort), queue);
    }

    @Override
    public void stopBroker() {
        throw new UnsupportedOperationException("ElasticMQ keeps its queues in memory: a restart would lose them");
    }

    @Override
    public void startBroker() {
        throw new UnsupportedOperationException("ElasticMQ keeps its queues in memory: a restart would lose them");
    }

    /** Receives (and deletes) everything in the queue; a standard queue has no order, the sequence is a count. */
    @Override
    public List<Arrival> readAll() {
        List<Arrival> arrivals = new ArrayList<>();
        for (Message m : server.receiveAll(url)) {
            String id = SqsMessages.headersOf(m).get(MessageHeaders.EVENT_ID);
            arrivals.add(Arrival.of(id, SqsMessages.payloadOf(m), arrivals.size() + 1));
        }
        return arrivals;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
