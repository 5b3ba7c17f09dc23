package io.txoutbox;

/**
 * The context of the work in progress, stamped on every appended event that does not name these values
 * itself. Supply one per thread (from your request context, MDC or tracing library) with {@link
 * Outbox.Builder#scope(java.util.function.Supplier)}. Every component may be {@code null}.
 *
 * @param correlationId the id that ties together everything caused by one request
 * @param causationId the id of the message or command that caused this event
 * @param tenantId the tenant the work belongs to
 * @param traceparent the W3C trace context {@code traceparent} of the appending span
 * @param tracestate the W3C trace context {@code tracestate}
 */
public record EventScope(
        String correlationId, String causationId, String tenantId, String traceparent, String tracestate) {

    /** A scope that stamps nothing. */
    public static final EventScope EMPTY = new EventScope(null, null, null, null, null);
}
