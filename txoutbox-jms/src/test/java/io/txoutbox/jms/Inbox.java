package io.txoutbox.jms;

import io.txoutbox.test.transport.PublisherContract;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A consumer straight on the broker that keeps every message of one queue or topic, as JMS delivered it. */
final class Inbox implements PublisherContract.Received {
    private final Connection connection;
    private final List<Message> raw = new CopyOnWriteArrayList<>();

    private Inbox(Connection connection) {
        this.connection = connection;
    }

    static Inbox queue(String name) throws JMSException {
        return open(name, false);
    }

    static Inbox topic(String name) throws JMSException {
        return open(name, true);
    }

    private static Inbox open(String name, boolean topic) throws JMSException {
        Connection connection = Artemis.direct().createConnection();
        Inbox inbox = new Inbox(connection);
        try {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Destination destination = topic ? session.createTopic(name) : session.createQueue(name);
            MessageConsumer consumer = session.createConsumer(destination);
            consumer.setMessageListener(inbox.raw::add);
            connection.start();
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return inbox;
    }

    /** @return every message as it arrived */
    List<Message> raw() {
        return List.copyOf(raw);
    }

    @Override
    public List<PublisherContract.Message> messages() {
        List<PublisherContract.Message> messages = new ArrayList<>();
        for (Message m : raw) {
            try {
                messages.add(new PublisherContract.Message(JmsHeaders.headersOf(m), JmsHeaders.payloadOf(m)));
            } catch (JMSException e) {
                throw new IllegalStateException("cannot read a received message", e);
            }
        }
        return messages;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (JMSException e) {
            // The test is over.
        }
    }
}
