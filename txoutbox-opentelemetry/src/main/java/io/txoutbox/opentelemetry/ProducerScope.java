package io.txoutbox.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.txoutbox.EventHeaders;
import io.txoutbox.EventScope;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Starts and ends a {@code create} span on each append and stamps its context: the events' creation
 * context. The span is a moment (the scope is asked just before the insert), a child of the appending
 * thread's current span.
 */
final class ProducerScope implements Supplier<EventScope> {
    private final TxoutboxTracing tracing;
    private final Supplier<EventScope> base;

    ProducerScope(TxoutboxTracing tracing, Supplier<EventScope> base) {
        this.tracing = tracing;
        this.base = base;
    }

    @Override
    public EventScope get() {
        EventScope b = base.get();
        if (b == null) {
            b = EventScope.EMPTY;
        }
        Span create = tracing.tracer()
                .spanBuilder("create")
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(Context.current())
                .setAttribute(TxoutboxTracing.MESSAGING_SYSTEM, tracing.system())
                .setAttribute(TxoutboxTracing.OPERATION_NAME, "create")
                .setAttribute(TxoutboxTracing.OPERATION_TYPE, "create")
                .startSpan();
        create.end();
        if (!create.getSpanContext().isValid()) {
            return b; // no SDK: nothing to stamp
        }
        Map<String, String> carrier = new HashMap<>(4);
        TxoutboxTracing.propagator().inject(Context.root().with(create), carrier, Map::put);
        String tracestate = carrier.get(EventHeaders.TRACESTATE);
        return new EventScope(
                b.correlationId(),
                b.causationId(),
                b.tenantId(),
                carrier.get(EventHeaders.TRACEPARENT),
                tracestate == null || tracestate.isEmpty() ? null : tracestate);
    }

    @Override
    public String toString() {
        return "ProducerScope[" + tracing + "]";
    }
}
