package io.txoutbox;

/**
 * The names of the headers txoutbox itself writes and transports carry on every message. Lower case,
 * as HTTP/2 and most brokers prefer.
 */
public final class EventHeaders {
    /** The correlation id: ties together everything caused by one request. */
    public static final String CORRELATION_ID = "correlation-id";
    /** The causation id: the message or command that caused this event. */
    public static final String CAUSATION_ID = "causation-id";
    /** The W3C trace context {@code traceparent}. */
    public static final String TRACEPARENT = "traceparent";
    /** The W3C trace context {@code tracestate}. */
    public static final String TRACESTATE = "tracestate";

    private EventHeaders() {}
}
