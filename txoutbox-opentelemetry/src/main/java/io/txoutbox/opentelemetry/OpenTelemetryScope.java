package io.txoutbox.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.txoutbox.EventHeaders;
import io.txoutbox.EventScope;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * An {@link EventScope} supplier that stamps the W3C trace context ({@code traceparent}, {@code
 * tracestate}) of the OpenTelemetry span current on the appending thread, so that every appended event
 * carries it and transports send it on as message headers: the consumer's span joins the producer's
 * trace. Needs {@code io.opentelemetry:opentelemetry-api} on the classpath.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder(dataSource)
 *         .scope(OpenTelemetryScope.create())   // or .withBase(yourCorrelationScope)
 *         .build();
 * }</pre>
 *
 * <p>With no valid current span the base scope's values are used unchanged. An event that names its own
 * {@code traceparent} header keeps it. Thread-safe.
 */
public final class OpenTelemetryScope implements Supplier<EventScope> {
    private final TextMapPropagator propagator;
    private final Supplier<EventScope> base;

    private OpenTelemetryScope(TextMapPropagator propagator, Supplier<EventScope> base) {
        this.propagator = propagator;
        this.base = base;
    }

    /** @return a scope that writes the current span's context with the W3C trace-context propagator */
    public static OpenTelemetryScope create() {
        return new OpenTelemetryScope(W3CTraceContextPropagator.getInstance(), () -> EventScope.EMPTY);
    }

    /**
     * @param base supplies the correlation id, causation id and tenant (and a trace context used when no
     *     span is current)
     * @return a scope that takes those from {@code base} and the trace context from the current span
     */
    public OpenTelemetryScope withBase(Supplier<EventScope> base) {
        return new OpenTelemetryScope(propagator, Objects.requireNonNull(base, "base"));
    }

    /** @return the base scope, with the current span's {@code traceparent} and {@code tracestate} */
    @Override
    public EventScope get() {
        EventScope b = base.get();
        if (b == null) {
            b = EventScope.EMPTY;
        }
        Context context = Context.current();
        if (!Span.fromContext(context).getSpanContext().isValid()) {
            return b;
        }
        Map<String, String> carrier = new HashMap<>(4);
        propagator.inject(context, carrier, (map, key, value) -> {
            if (map != null) {
                map.put(key, value);
            }
        });
        String traceparent = carrier.get(EventHeaders.TRACEPARENT);
        if (traceparent == null) {
            return b;
        }
        String tracestate = carrier.get(EventHeaders.TRACESTATE);
        return new EventScope(
                b.correlationId(),
                b.causationId(),
                b.tenantId(),
                traceparent,
                tracestate == null || tracestate.isEmpty() ? null : tracestate);
    }

    @Override
    public String toString() {
        return "OpenTelemetryScope[" + propagator + "]";
    }
}
