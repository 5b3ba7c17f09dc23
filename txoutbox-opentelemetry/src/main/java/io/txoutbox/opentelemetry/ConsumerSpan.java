package io.txoutbox.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;

/**
 * A consumer's {@code process} span, current on the thread that started it until {@link #close()}. Use
 * it in a try-with-resources block on one thread; record a failure with {@link #failed} before it closes.
 */
public final class ConsumerSpan implements AutoCloseable {
    private final Span span;
    private final Scope scope;
    private boolean closed;

    ConsumerSpan(Span span) {
        this.span = span;
        this.scope = span.makeCurrent();
    }

    /** @return the span, to add attributes or events of your own */
    public Span span() {
        return span;
    }

    /**
     * Marks the processing failed: records the exception and sets the error status, with {@code
     * error.type} = the exception's class name.
     *
     * @param error what went wrong
     */
    public void failed(Throwable error) {
        span.recordException(error);
        TxoutboxTracing.error(span, error.getClass().getName(), error.getClass().getSimpleName());
    }

    /** Leaves the span's scope and ends it. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        scope.close();
        span.end();
    }

    @Override
    public String toString() {
        return "ConsumerSpan[" + span.getSpanContext().getTraceId() + "/"
                + span.getSpanContext().getSpanId() + "]";
    }
}
