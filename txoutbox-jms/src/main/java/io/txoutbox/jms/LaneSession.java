package io.txoutbox.jms;

import io.txoutbox.internal.transport.ContentTypes;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.HashMap;
import java.util.Map;

/**
 * One session and its anonymous producer, used by one lane thread at a time: JMS sessions are
 * single-threaded. It also turns events into messages and routes into destinations (cached).
 */
final class LaneSession {
    static final String QUEUE_SCHEME = "queue://";
    static final String TOPIC_SCHEME = "topic://";
    private static final int MAX_CACHED_DESTINATIONS = 1_024;
    private static final int PERSISTENT = DeliveryMode.PERSISTENT;
    private static final long NEVER_EXPIRES = Message.DEFAULT_TIME_TO_LIVE;

    private final Session session;
    private final MessageProducer producer;
    private final Map<String, Destination> destinations = new HashMap<>();

    private LaneSession(Session session, MessageProducer producer) {
        this.session = session;
        this.producer = producer;
    }

    static LaneSession open(Connection connection) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try {
            MessageProducer producer = session.createProducer(null);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            return new LaneSession(session, producer);
        } catch (JMSException | RuntimeException e) {
            closeQuietly(session);
            throw e;
        }
    }

    /** Sends persistently, at the default priority, never expiring; returns once the provider has it. */
    void send(Destination destination, Message message) throws JMSException {
        producer.send(destination, message, PERSISTENT, Message.DEFAULT_PRIORITY, NEVER_EXPIRES);
    }

    /** Sends as {@link #send(Destination, Message)} does, and tells {@code done} when the provider has it. */
    void send(Destination destination, Message message, CompletionListener done) throws JMSException {
        producer.send(destination, message, PERSISTENT, Message.DEFAULT_PRIORITY, NEVER_EXPIRES, done);
    }

    /** @return the destination a route names: {@code queue://name}, {@code topic://name}, or a bare name */
    Destination destination(String route, JmsPublisher.DestinationType defaultType) throws JMSException {
        Destination known = destinations.get(route);
        if (known != null) {
            return known;
        }
        JmsPublisher.DestinationType type = defaultType;
        String name = route;
        if (route.startsWith(QUEUE_SCHEME)) {
            type = JmsPublisher.DestinationType.QUEUE;
            name = route.substring(QUEUE_SCHEME.length());
        } else if (route.startsWith(TOPIC_SCHEME)) {
            type = JmsPublisher.DestinationType.TOPIC;
            name = route.substring(TOPIC_SCHEME.length());
        }
        if (name.isBlank()) {
            throw new InvalidDestinationException("the route '" + route + "' names no destination");
        }
        Destination destination =
                type == JmsPublisher.DestinationType.QUEUE ? session.createQueue(name) : session.createTopic(name);
        if (destinations.size() >= MAX_CACHED_DESTINATIONS) {
            destinations.clear();
        }
        destinations.put(route, destination);
        return destination;
    }

    /**
     * @return the event as a message: text for a text content type whose payload is UTF-8, else bytes;
     *     every header a string property (names mapped by {@link JmsHeaders}); correlation id and type
     * @throws IllegalArgumentException for a header name no property can carry
     */
    Message message(ClaimedEvent event) throws JMSException {
        Message message;
        String text = ContentTypes.isText(event.contentType()) ? ContentTypes.utf8OrNull(event.payload()) : null;
        if (text != null) {
            message = session.createTextMessage(text);
        } else {
            BytesMessage bytes = session.createBytesMessage();
            bytes.writeBytes(event.payload());
            message = bytes;
        }
        for (Map.Entry<String, String> h : MessageHeaders.of(event).entrySet()) {
            message.setStringProperty(JmsHeaders.propertyName(h.getKey()), h.getValue());
        }
        if (event.correlationId() != null) {
            message.setJMSCorrelationID(event.correlationId());
        }
        message.setJMSType(event.eventType());
        return message;
    }

    void closeQuietly() {
        closeQuietly(session);
    }

    private static void closeQuietly(Session session) {
        try {
            session.close();
        } catch (JMSException | RuntimeException e) {
            // The session or its connection is already broken: nothing left to release.
        }
    }
}
