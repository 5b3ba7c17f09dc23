package io.txoutbox.jms;

import io.txoutbox.internal.transport.Errors;
import jakarta.jms.Connection;
import jakarta.jms.ExceptionListener;
import jakarta.jms.JMSException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * One connection to the provider and its lane sessions. It fails once, when the provider reports the
 * connection lost (its {@link ExceptionListener}) or a send shows it broken: then every wait on it ends
 * and the publisher opens a new link.
 */
final class Link implements ExceptionListener {
    private final Connection connection;
    private final AtomicReferenceArray<LaneSession> sessions;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Set<Pending> waits = ConcurrentHashMap.newKeySet();
    private final BiConsumer<Link, Throwable> onFailure;

    Link(Connection connection, int lanes, BiConsumer<Link, Throwable> onFailure) {
        this.connection = connection;
        this.sessions = new AtomicReferenceArray<>(lanes);
        this.onFailure = onFailure;
    }

    Connection connection() {
        return connection;
    }

    LaneSession session(int lane) {
        return sessions.get(lane);
    }

    /** @return the session it replaced, or {@code null} */
    LaneSession replace(int lane, LaneSession session) {
        return sessions.getAndSet(lane, session);
    }

    /** @return the session taken out of service, or {@code null} when another thread took it first */
    LaneSession retire(int lane, LaneSession session) {
        return sessions.compareAndSet(lane, session, null) ? session : null;
    }

    boolean failed() {
        return failure.get() != null;
    }

    Throwable failure() {
        return failure.get();
    }

    void register(Pending pending) {
        waits.add(pending);
        Throwable f = failure.get();
        if (f != null) {
            pending.abort(lostReason(f));
        }
    }

    void unregister(Pending pending) {
        waits.remove(pending);
    }

    @Override
    public void onException(JMSException exception) {
        fail(exception);
    }

    /** Marks the link failed (once), ends every wait on it and tells the publisher. */
    void fail(Throwable cause) {
        if (!failure.compareAndSet(null, cause)) {
            return;
        }
        String reason = lostReason(cause);
        for (Pending p : waits) {
            p.abort(reason);
        }
        onFailure.accept(this, cause);
    }

    static String lostReason(Throwable cause) {
        return "the connection to the JMS provider was lost: " + Errors.withRootCause(cause);
    }

    /** Closes the connection and with it every session; may block on a silent provider, so never on a lane. */
    void closeQuietly() {
        try {
            connection.close();
        } catch (JMSException | RuntimeException e) {
            // Already broken: nothing left to release.
        }
    }
}
