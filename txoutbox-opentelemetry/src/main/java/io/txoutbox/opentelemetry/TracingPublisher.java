package io.txoutbox.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.txoutbox.EventHeaders;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A {@link Publisher} that traces its delegate: one {@code send} span per event, a child of the event's
 * creation context and linked to it, whose context replaces the event's {@code traceparent} and {@code
 * tracestate} on the way to the transport. The outbox row keeps the creation context, so every attempt
 * gets a send span of its own under the same parent. Spans end when the delegate's stage completes.
 */
final class TracingPublisher implements Publisher {
    private final TxoutboxTracing tracing;
    private final Publisher delegate;

    TracingPublisher(TxoutboxTracing tracing, Publisher delegate) {
        this.tracing = tracing;
        this.delegate = delegate;
    }

    @Override
    public CompletionStage<List<PublishOutcome>> publish(List<ClaimedEvent> batch) {
        List<Span> spans = new ArrayList<>(batch.size());
        List<ClaimedEvent> traced = new ArrayList<>(batch.size());
        for (ClaimedEvent event : batch) {
            Span span = start(event);
            spans.add(span);
            traced.add(withContext(event, span));
        }
        CompletionStage<List<PublishOutcome>> stage;
        try {
            stage = delegate.publish(traced);
        } catch (RuntimeException | Error e) {
            endAll(spans, e);
            throw e;
        }
        return stage.whenComplete((outcomes, error) -> {
            if (error != null || outcomes == null || outcomes.size() != spans.size()) {
                endAll(spans, error);
                return;
            }
            for (int i = 0; i < spans.size(); i++) {
                end(spans.get(i), outcomes.get(i));
            }
        });
    }

    private Span start(ClaimedEvent event) {
        String destination;
        try {
            destination = tracing.router().destinationOf(event);
        } catch (RuntimeException e) {
            destination = null; // the transport reports it; the span only loses its name
        }
        boolean named = destination != null && !destination.isBlank();
        SpanBuilder builder = tracing.tracer()
                .spanBuilder(named ? "send " + destination : "send")
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(TxoutboxTracing.MESSAGING_SYSTEM, tracing.system())
                .setAttribute(TxoutboxTracing.OPERATION_NAME, "send")
                .setAttribute(TxoutboxTracing.OPERATION_TYPE, "send")
                .setAttribute(TxoutboxTracing.MESSAGE_ID, event.id().toString())
                .setAttribute(TxoutboxTracing.BODY_SIZE, (long) event.payload().length)
                .setAttribute(TxoutboxTracing.EVENT_TYPE, event.eventType())
                .setAttribute(TxoutboxTracing.ATTEMPT, (long) event.attempt());
        if (named) {
            builder.setAttribute(TxoutboxTracing.DESTINATION, destination);
        }
        if (event.correlationId() != null) {
            builder.setAttribute(TxoutboxTracing.CONVERSATION_ID, event.correlationId());
        }
        Context creation = TxoutboxTracing.propagator()
                .extract(Context.root(), event.headers(), TxoutboxTracing.MapGetter.INSTANCE);
        SpanContext parent = Span.fromContext(creation).getSpanContext();
        // The relay's thread has no trace of its own: the creation context is the parent, or a new trace.
        builder.setParent(parent.isValid() ? creation : Context.root());
        if (parent.isValid()) {
            builder.addLink(parent);
        }
        return builder.startSpan();
    }

    private static ClaimedEvent withContext(ClaimedEvent event, Span span) {
        if (!span.getSpanContext().isValid()) {
            return event; // no SDK: the event goes as it is
        }
        Map<String, String> headers = new HashMap<>(event.headers());
        headers.remove(EventHeaders.TRACEPARENT);
        headers.remove(EventHeaders.TRACESTATE);
        TxoutboxTracing.propagator().inject(Context.root().with(span), headers, Map::put);
        return new ClaimedEvent(
                event.id(),
                event.aggregateType(),
                event.aggregateId(),
                event.eventType(),
                event.eventVersion(),
                event.payload(),
                event.contentType(),
                headers,
                event.tenantId(),
                event.destination(),
                event.createdAt(),
                event.attempt(),
                event.maxAttempts());
    }

    private static void end(Span span, PublishOutcome outcome) {
        switch (outcome.outcome()) {
            case PUBLISHED -> {}
            case RETRY -> TxoutboxTracing.error(span, "retry", outcome.reason());
            case DEAD -> TxoutboxTracing.error(span, "dead", outcome.reason());
        }
        span.end();
    }

    private static void endAll(List<Span> spans, Throwable error) {
        for (Span span : spans) {
            if (error != null) {
                span.recordException(error);
                TxoutboxTracing.error(span, error.getClass().getName(), "the publisher failed the batch: " + error);
            } else {
                TxoutboxTracing.error(span, "retry", "the publisher gave no outcome per event");
            }
            span.end();
        }
    }

    /** Closes the delegate: the traced publisher owns nothing else. */
    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "TracingPublisher[" + delegate + "]";
    }
}
