package io.txoutbox.spring.modulith;

import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxException;
import io.txoutbox.spring.SpringOutbox;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.RoutingTarget;

/**
 * Appends every event (an object published with {@code ApplicationEventPublisher.publishEvent}) that Spring
 * Modulith's {@link EventExternalizationConfiguration} selects (by default: annotated with Modulith's or
 * jMolecules' {@code @Externalized}) to the txoutbox table,
 * <strong>synchronously, inside the transaction that publishes it</strong>: the event row commits with the
 * business change or rolls back with it, and the relay delivers it afterwards with a txoutbox transport.
 *
 * <p>How a Modulith event becomes an outbox event:
 *
 * <table>
 *   <caption>mapping</caption>
 *   <tr><th>outbox event</th><th>from</th></tr>
 *   <tr><td>destination and aggregate type</td><td>the routing target ({@code determineTarget}), SpEL
 *       ({@code #{...}}) evaluated against the mapped event as Modulith's own externalizers do</td></tr>
 *   <tr><td>aggregate id (the broker key, the unit of ordering)</td><td>the routing key ({@code
 *       "target::key"}), SpEL evaluated likewise; the event's own id when the target has no key</td></tr>
 *   <tr><td>headers</td><td>{@code getHeadersFor(mapped)}, each value as text, {@code null} values left
 *       out</td></tr>
 *   <tr><td>payload</td><td>{@code map(event)} serialized by the {@link ExternalizedPayloadSerializer}
 *       (the application's JSON mapper by default)</td></tr>
 *   <tr><td>event type</td><td>the published event's fully qualified class name</td></tr>
 * </table>
 *
 * <p>{@link ExternalizedEventCustomizer} beans adjust the result. An event published outside a
 * transaction is refused with an exception (unless {@code txoutbox.allow-append-without-transaction}), never
 * silently dropped; an event that fails to serialize or to validate throws at the publishing call, so the
 * transaction rolls back. The listener is not a transactional listener, so Modulith's event publication
 * registry records no publication for it and never re-sends what txoutbox carries; and it never runs on
 * another thread, even with an asynchronous multicaster. Thread-safe.
 */
public final class TxOutboxEventExternalizer implements ApplicationListener<PayloadApplicationEvent<?>> {
    private static final Logger log = LoggerFactory.getLogger(TxOutboxEventExternalizer.class);

    private final SpringOutbox outbox;
    private final EventExternalizationConfiguration configuration;
    private final ExternalizedPayloadSerializer serializer;
    private final List<ExternalizedEventCustomizer> customizers;
    private final RouteExpressions expressions;

    TxOutboxEventExternalizer(
            SpringOutbox outbox,
            EventExternalizationConfiguration configuration,
            ExternalizedPayloadSerializer serializer,
            List<ExternalizedEventCustomizer> customizers,
            RouteExpressions expressions) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.configuration = Objects.requireNonNull(configuration, "configuration");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.customizers = List.copyOf(customizers);
        this.expressions = Objects.requireNonNull(expressions, "expressions");
    }

    /**
     * Appends the event if the externalization configuration selects it.
     *
     * @param published an object published with {@code ApplicationEventPublisher.publishEvent}
     * @throws OutboxException when the event cannot be appended (no transaction, serialization failure)
     * @throws io.txoutbox.OutboxValidationException when the event breaks an outbox rule (a key over 255
     *     characters, a header name that is not a token), naming the field and the limit
     */
    @Override
    public void onApplicationEvent(PayloadApplicationEvent<?> published) {
        Object event = published.getPayload();
        if (!configuration.supports(event)) {
            return;
        }
        OutboxEvent written = outbox.append(toOutboxEvent(event));
        if (log.isDebugEnabled()) {
            log.debug(
                    "txoutbox: appended externalized {} as event {} for {}",
                    event.getClass().getName(),
                    written.id(),
                    written.destination());
        }
    }

    /**
     * Never on another thread, even with an asynchronous multicaster: the append must run in the publishing
     * thread's transaction.
     */
    @Override
    public boolean supportsAsyncExecution() {
        return false;
    }

    /** Builds the outbox event for one selected application event; appends nothing. */
    OutboxEvent toOutboxEvent(Object event) {
        RoutingTarget target = configuration.determineTarget(event);
        Object mapped = configuration.map(event);
        if (mapped == null) {
            throw new OutboxException("txoutbox: EventExternalizationConfiguration.map returned null for "
                    + event.getClass().getName() + "; a mapping must return the payload to externalize");
        }
        String destination = expressions.resolve("target", target.getTarget(), mapped);
        if (destination == null || destination.isBlank()) {
            throw new OutboxException("txoutbox: the routing target '" + target.getTarget() + "' of "
                    + event.getClass().getName() + " resolved to nothing; a target names where the event goes");
        }
        String key = expressions.resolve("key", target.getKey(), mapped);

        OutboxEvent.Builder builder = OutboxEvent.builder(event.getClass().getName())
                .payload(serialize(event, mapped), serializer.contentType())
                .destination(destination);
        Map<String, Object> headers = configuration.getHeadersFor(mapped);
        if (headers != null) {
            for (Map.Entry<String, Object> header : headers.entrySet()) {
                if (header.getValue() != null) {
                    builder.header(header.getKey(), text(header.getValue()));
                }
            }
        }
        if (key == null || key.isBlank()) {
            // No key: every event is an aggregate of its own (no ordering constraint, spread over partitions),
            // named by its own id so that the aggregate id still says something.
            UUID id = builder.aggregate(destination, "-").build().id();
            builder.id(id).aggregate(destination, id.toString());
        } else {
            builder.aggregate(destination, key);
        }
        for (ExternalizedEventCustomizer customizer : customizers) {
            customizer.customize(event, builder);
        }
        return builder.build();
    }

    private byte[] serialize(Object event, Object mapped) {
        byte[] bytes;
        try {
            bytes = serializer.serialize(mapped);
        } catch (RuntimeException e) {
            // The serializer's own message may quote the payload: name the types only, keep it as the cause.
            throw new OutboxException(
                    "txoutbox: the externalized event " + event.getClass().getName() + " (payload "
                            + mapped.getClass().getName() + ") cannot be serialized with " + serializer + ": "
                            + e.getClass().getName(),
                    e);
        }
        if (bytes == null) {
            throw new OutboxException("txoutbox: " + serializer + " returned no bytes for the externalized event "
                    + event.getClass().getName());
        }
        return bytes;
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : value.toString();
    }

    @Override
    public String toString() {
        return "TxOutboxEventExternalizer[table=" + outbox.table() + ", serializer=" + serializer + "]";
    }
}
