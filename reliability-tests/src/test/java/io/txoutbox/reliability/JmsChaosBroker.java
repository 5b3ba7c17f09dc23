package io.txoutbox.reliability;

import io.txoutbox.harness.jms.ArtemisBroker;
import io.txoutbox.jms.JmsHeaders;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * An embedded ActiveMQ Artemis broker in this JVM (the harness's {@link ArtemisBroker}), persistent,
 * and one queue. Artemis detects duplicates only for messages that carry its duplicate-id property,
 * which the relays' messages do not, so every copy they deliver is stored and counted. A restart
 * keeps the journal: what the broker confirmed before it comes back.
 */
final class JmsChaosBroker implements ChaosBroker {
    private final String queue;
    private ArtemisBroker broker;

    JmsChaosBroker(String runId) {
        this.queue = runId;
    }

    @Override
    public void start() {
        broker = ArtemisBroker.start();
    }

    @Override
    public int port() {
        return broker.address().getPort();
    }

    @Override
    public List<String> relayTarget(String proxyHost, int proxyPort) {
        return List.of("jms", "tcp://" + proxyHost + ":" + proxyPort, queue);
    }

    @Override
    public void stopBroker() {
        broker.stopBroker();
    }

    @Override
    public void startBroker() {
        broker.startBroker();
    }

    /** Consumes everything in the queue, in queue order, until it has been empty for two seconds. */
    @Override
    public List<Arrival> readAll() throws Exception {
        List<Arrival> arrivals = new ArrayList<>();
        try (Connection c = broker.factory(false).createConnection()) {
            c.start();
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            Message m;
            while ((m = consumer.receive(2_000)) != null) {
                String id = m.getStringProperty(JmsHeaders.EVENT_ID_PROPERTY);
                arrivals.add(Arrival.of(id, JmsHeaders.payloadOf(m), arrivals.size() + 1));
            }
        }
        return arrivals;
    }

    @Override
    public void close() {
        if (broker != null) {
            broker.close();
        }
    }
}
