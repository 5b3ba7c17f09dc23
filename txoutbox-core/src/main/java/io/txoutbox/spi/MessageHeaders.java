package io.txoutbox.spi;

import io.txoutbox.EventHeaders;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The headers every transport puts on every message, so that a consumer of any broker finds the same
 * names: the event's identity, its aggregate, its tenant, its correlation and trace context, and its
 * content type; then the event's own headers. The standard names win over an event header of the
 * same name.
 */
public final class MessageHeaders {
    /** The event id: consumers deduplicate on it. */
    public static final String EVENT_ID = "event-id";
    /** The event type. */
    public static final String EVENT_TYPE = "event-type";
    /** The payload schema version. */
    public static final String EVENT_VERSION = "event-version";
    /** The aggregate type. */
    public static final String AGGREGATE_TYPE = "aggregate-type";
    /** The aggregate id. */
    public static final String AGGREGATE_ID = "aggregate-id";
    /** The tenant, when the event has one. */
    public static final String TENANT_ID = "tenant-id";
    /** The payload's media type. */
    public static final String CONTENT_TYPE = "content-type";
    /** The correlation id, when known. */
    public static final String CORRELATION_ID = EventHeaders.CORRELATION_ID;
    /** The causation id, when known. */
    public static final String CAUSATION_ID = EventHeaders.CAUSATION_ID;
    /** The W3C traceparent, when known. */
    public static final String TRACEPARENT = EventHeaders.TRACEPARENT;
    /** The W3C tracestate, when known. */
    public static final String TRACESTATE = EventHeaders.TRACESTATE;

    private MessageHeaders() {}

    /**
     * @param event a claimed event
     * @return its headers in a stable order: the standard ones first, then the event's own
     */
    public static Map<String, String> of(ClaimedEvent event) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(EVENT_ID, event.id().toString());
        headers.put(EVENT_TYPE, event.eventType());
        headers.put(EVENT_VERSION, Integer.toString(event.eventVersion()));
        headers.put(AGGREGATE_TYPE, event.aggregateType());
        headers.put(AGGREGATE_ID, event.aggregateId());
        if (event.tenantId() != null) {
            headers.put(TENANT_ID, event.tenantId());
        }
        headers.put(CONTENT_TYPE, event.contentType());
        for (Map.Entry<String, String> own : event.headers().entrySet()) {
            headers.putIfAbsent(own.getKey(), own.getValue());
        }
        return Collections.unmodifiableMap(headers);
    }
}
