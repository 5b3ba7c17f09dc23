package io.txoutbox.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.txoutbox.EventScope;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.inbox.Inbox;
import io.txoutbox.spi.Publisher;
import io.txoutbox.spi.Router;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * OpenTelemetry spans for the outbox, after the messaging semantic conventions: one trace from the span
 * that appends an event, through the relay's send, to the consumer's processing.
 *
 * <ol>
 *   <li><b>At append</b> ({@link #producerScope()}): a {@code create} span ({@code PRODUCER}), child of the
 *       appending thread's current span; its context is the event's creation context, stamped on the
 *       event as {@code traceparent}/{@code tracestate}.
 *   <li><b>At the relay</b> ({@link #publisher(Publisher)}): per event a {@code send <destination>} span
 *       ({@code PRODUCER}), child of the event's creation context and linked to it, ended with the broker's
 *       answer; the message goes out with the send span's context as its {@code traceparent}, so the
 *       consumer continues after the actual send (each attempt has its own).
 *   <li><b>At the consumer</b> ({@link #process} and {@link #processOnce}): a {@code process <destination>}
 *       span ({@code CONSUMER}), linked to the message's context and its child unless a span is already
 *       current.
 * </ol>
 *
 * <pre>{@code
 * TxoutboxTracing tracing = TxoutboxTracing.builder(openTelemetry).messagingSystem("kafka").build();
 * Outbox outbox = Outbox.builder(dataSource).scope(tracing.producerScope()).build();
 * Relay relay = outbox.relay(tracing.publisher(kafka)).build();
 * // the consumer:
 * try (ConsumerSpan span = tracing.process(record.topic(), headers)) { handle(record); }
 * }</pre>
 *
 * <p>Needs only the OpenTelemetry API; the application brings the SDK (or the Java agent) and its
 * exporters. Without one every span is a no-op and events carry no trace context. The trace context
 * travels as W3C {@code traceparent}/{@code tracestate} headers, as the outbox table stores it. Immutable
 * and thread-safe.
 */
public final class TxoutboxTracing {
    /** The instrumentation scope name of every span. */
    public static final String INSTRUMENTATION_NAME = "io.txoutbox";

    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("messaging.message.conversation_id");
    static final AttributeKey<Long> BODY_SIZE = AttributeKey.longKey("messaging.message.body.size");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("txoutbox.event.type");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("txoutbox.attempt");
    static final AttributeKey<Boolean> DUPLICATE = AttributeKey.booleanKey("txoutbox.inbox.duplicate");

    private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();

    private final Tracer tracer;
    private final String system;
    private final Router router;

    private TxoutboxTracing(Builder b) {
        this.tracer = b.openTelemetry.getTracer(INSTRUMENTATION_NAME);
        this.system = b.system;
        this.router = b.router;
    }

    /**
     * @param openTelemetry the application's OpenTelemetry (its tracer provider makes the spans)
     * @return a builder
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /**
     * A scope supplier for {@code Outbox.Builder.scope}: on every append it starts and ends a {@code create}
     * span ({@code PRODUCER}, {@code messaging.operation.type=create}) as a child of the current span (a
     * new trace when none is current), and stamps that span's context on the appended events. One span
     * per {@code append} or {@code appendAll} call: the events of one {@code appendAll} share it. An event
     * that names its own {@code traceparent} keeps it.
     *
     * @return the supplier
     */
    public Supplier<EventScope> producerScope() {
        return producerScope(() -> EventScope.EMPTY);
    }

    /**
     * @param base supplies the correlation id, causation id and tenant, as your own scope supplier does
     * @return {@link #producerScope()} over that base
     */
    public Supplier<EventScope> producerScope(Supplier<EventScope> base) {
        return new ProducerScope(this, Objects.requireNonNull(base, "base"));
    }

    /**
     * Wraps a transport so that the relay's every publish is traced: a {@code send <destination>} span per
     * event ({@code PRODUCER}, {@code messaging.operation.type=send}), child of the event's creation
     * context with a link to it, carrying {@code messaging.message.id} = event id and the attempt; the
     * event goes to the transport with the send span's {@code traceparent}/{@code tracestate}. The span
     * ends when the transport answers: a retry or dead outcome sets an error status with the reason and
     * {@code error.type} {@code retry} or {@code dead}.
     *
     * @param delegate the transport
     * @return the traced publisher; closing it closes the delegate
     */
    public Publisher publisher(Publisher delegate) {
        return new TracingPublisher(this, Objects.requireNonNull(delegate, "delegate"));
    }

    /**
     * Starts a {@code process <destination>} span ({@code CONSUMER}) for one received message and makes it
     * current. It links to the message's trace context (from its {@code traceparent}/{@code tracestate}
     * headers, names matched case-insensitively) and is its child, unless a span is current already (a
     * listener container's or an HTTP server's), which then stays the parent. Close it when done:
     *
     * <pre>{@code
     * try (ConsumerSpan span = tracing.process(record.topic(), headers)) {
     *     handle(record);
     * } // record a failure with span.failed(e) before closing
     * }</pre>
     *
     * @param destination the topic, queue, subject or endpoint the message came from (the span's name)
     * @param headers the message headers
     * @return the started span
     */
    public ConsumerSpan process(String destination, Map<String, String> headers) {
        return process(destination, headers, MapGetter.INSTANCE);
    }

    /**
     * As {@link #process(String, Map)}, reading the headers through a getter.
     *
     * @param destination where the message came from
     * @param carrier the message, or its headers
     * @param getter reads a header of the carrier
     * @param <C> the carrier's type
     * @return the started span
     */
    public <C> ConsumerSpan process(String destination, C carrier, TextMapGetter<C> getter) {
        Objects.requireNonNull(getter, "getter");
        SpanContext message =
                Span.fromContext(W3C.extract(Context.root(), carrier, getter)).getSpanContext();
        String id = carrier == null ? null : getter.get(carrier, "event-id");
        return start(destination, message, id);
    }

    /**
     * Processes a message at most once per consumer inside the caller's transaction, traced: starts the
     * {@link #process(String, Map)} span with {@code messaging.message.id} = the event id, records the id
     * in the inbox, and runs {@code work} only the first time; a duplicate is marked {@code
     * txoutbox.inbox.duplicate=true} and skipped. A failure of {@code work} sets the span's error status
     * and is rethrown (a checked one wrapped in {@link OutboxException}): roll the transaction back.
     * Does not commit.
     *
     * @param inbox the consumer's inbox
     * @param connection the consumer's transaction
     * @param destination where the message came from
     * @param headers the message headers
     * @param eventId the event id (the {@code event-id} header, or {@code ce-id} with CloudEvents)
     * @param work applies the event through {@code connection}
     * @return true when the work ran; false for a duplicate
     */
    public boolean processOnce(
            Inbox inbox,
            Connection connection,
            String destination,
            Map<String, String> headers,
            UUID eventId,
            InboxWork work) {
        Objects.requireNonNull(inbox, "inbox");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(work, "work");
        SpanContext message = Span.fromContext(W3C.extract(Context.root(), headers, MapGetter.INSTANCE))
                .getSpanContext();
        try (ConsumerSpan span = start(destination, message, eventId.toString())) {
            try {
                if (!inbox.markProcessed(connection, eventId)) {
                    span.span().setAttribute(DUPLICATE, true);
                    return false;
                }
                span.span().setAttribute(DUPLICATE, false);
                work.run(connection);
                return true;
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            } catch (Exception e) {
                span.failed(e);
                throw new OutboxException("txoutbox: processing event " + eventId + " failed: " + e, e);
            }
        }
    }

    /** What a consumer does with an event, inside its transaction. */
    @FunctionalInterface
    public interface InboxWork {
        /**
         * @param connection the consumer's transaction
         * @throws Exception any failure: the caller rolls the transaction back
         */
        void run(Connection connection) throws Exception;
    }

    private ConsumerSpan start(String destination, SpanContext message, String messageId) {
        String name = destination == null || destination.isBlank() ? "process" : "process " + destination;
        SpanBuilder builder = tracer.spanBuilder(name)
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute(MESSAGING_SYSTEM, system)
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(OPERATION_TYPE, "process");
        if (destination != null && !destination.isBlank()) {
            builder.setAttribute(DESTINATION, destination);
        }
        if (messageId != null) {
            builder.setAttribute(MESSAGE_ID, messageId);
        }
        Context current = Context.current();
        if (message.isValid()) {
            builder.addLink(message);
            if (!Span.fromContext(current).getSpanContext().isValid()) {
                builder.setParent(Context.root().with(Span.wrap(message)));
            }
        }
        return new ConsumerSpan(builder.startSpan());
    }

    Tracer tracer() {
        return tracer;
    }

    String system() {
        return system;
    }

    Router router() {
        return router;
    }

    static TextMapPropagator propagator() {
        return W3C;
    }

    static void error(Span span, String type, String description) {
        span.setAttribute(ERROR_TYPE, type);
        span.setStatus(StatusCode.ERROR, description);
    }

    @Override
    public String toString() {
        return "TxoutboxTracing[messagingSystem=" + system + "]";
    }

    /** Reads W3C trace headers from a map, names matched exactly first, then ignoring case. */
    enum MapGetter implements TextMapGetter<Map<String, String>> {
        INSTANCE;

        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier == null ? java.util.List.of() : carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            if (carrier == null) {
                return null;
            }
            String value = carrier.get(key);
            if (value != null) {
                return value;
            }
            for (Map.Entry<String, String> e : carrier.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(key)) {
                    return e.getValue();
                }
            }
            return null;
        }
    }

    /** Builds a {@link TxoutboxTracing}. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private String system = "txoutbox";
        private Router router = Router.BY_AGGREGATE_TYPE;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
        }

        /**
         * @param system {@code messaging.system} of every span: the broker, as the conventions name it
         *     ({@code kafka}, {@code rabbitmq}, {@code aws_sqs}, {@code jms}...; default {@code txoutbox})
         * @return this builder
         */
        public Builder messagingSystem(String system) {
            this.system = system;
            return this;
        }

        /**
         * @param router the transport's routing rule, prefix included, so that a send span names the
         *     destination the transport uses (default {@link Router#BY_AGGREGATE_TYPE}, the transports'
         *     default; an event's own destination always wins)
         * @return this builder
         */
        public Builder router(Router router) {
            this.router = Objects.requireNonNull(router, "router");
            return this;
        }

        /**
         * @return the tracing
         * @throws OutboxValidationException when the messaging system is blank
         */
        public TxoutboxTracing build() {
            if (system == null || system.isBlank()) {
                throw new OutboxValidationException(
                        "TxoutboxTracing.messagingSystem",
                        null,
                        "TxoutboxTracing.messagingSystem is blank; name the broker, for example kafka");
            }
            return new TxoutboxTracing(this);
        }
    }
}
