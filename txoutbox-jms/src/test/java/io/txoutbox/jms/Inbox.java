package io.txoutbox.jms;

import io.txoutbox.test.transport.Arrivals;
import io.txoutbox.test.transport.PublisherContract;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;

/** A consumer straight on the broker that keeps every message of one queue or topic, as JMS delivered it. */
final class Inbox extends Arrivals<Message> {
    private final Connection connection;

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
            consumer.setMessageListener(inbox::add);
            connection.start();
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return inbox;
    }

    @Override
    protected PublisherContract.Message read(Message m) throws JMSException {
        return new PublisherContract.Message(JmsHeaders.headersOf(m), JmsHeaders.payloadOf(m));
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
