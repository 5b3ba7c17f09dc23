package io.txoutbox.sqs;

import io.txoutbox.test.transport.Arrivals;
import io.txoutbox.test.transport.PublisherContract;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * Receives everything that arrives on one queue, directly from ElasticMQ, on a thread of its own
 * (long polls of one second), and deletes what it received.
 */
final class QueueReader extends Arrivals<Message> {
    private final String url;
    private final Thread poller;
    private volatile boolean stopped;

    QueueReader(String url) {
        this.url = url;
        this.poller = new Thread(this::poll, "queue-reader");
        poller.setDaemon(true);
        poller.start();
    }

    private void poll() {
        while (!stopped) {
            ReceiveMessageResponse r = ElasticMq.admin()
                    .receiveMessage(b -> b.queueUrl(url)
                            .maxNumberOfMessages(10)
                            .waitTimeSeconds(1)
                            .messageAttributeNames("All")
                            .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                    .exceptionally(e -> null)
                    .join();
            if (r == null || !r.hasMessages() || r.messages().isEmpty()) {
                continue;
            }
            addAll(r.messages());
            ElasticMq.server()
                    .deleteReceived(url, r.messages())
                    .exceptionally(e -> null)
                    .join();
        }
    }

    @Override
    protected PublisherContract.Message read(Message m) {
        return new PublisherContract.Message(SqsMessages.headersOf(m), SqsMessages.payloadOf(m));
    }

    @Override
    public void close() {
        stopped = true;
        try {
            poller.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
