package io.txoutbox.spring.modulith;

import io.txoutbox.OutboxEvent;

/**
 * Adjusts each outbox event built from an externalized Spring Modulith event, after the defaults are set
 * and before it is appended: the event type or version, the tenant, a delay, an attempt budget of its own.
 * Every bean of this type runs, in {@link org.springframework.core.annotation.Order} order.
 *
 * <pre>{@code
 * @Bean
 * ExternalizedEventCustomizer orderVersions() {
 *     return (event, outboxEvent) -> {
 *         if (event instanceof OrderPlaced) {
 *             outboxEvent.eventType("order.placed").version(2);
 *         }
 *     };
 * }
 * }</pre>
 *
 * <p>The defaults: event type = the event's fully qualified class name, version 1, aggregate type and
 * destination = the routing target, aggregate id = the routing key (or the event id when the target has
 * no key), headers = the configuration's, payload = the mapped event as serialized by the {@link
 * ExternalizedPayloadSerializer}.
 */
@FunctionalInterface
public interface ExternalizedEventCustomizer {

    /**
     * @param event the application event as it was published (before {@code EventExternalizationConfiguration.map})
     * @param outboxEvent the builder of the outbox event, with the defaults set
     */
    void customize(Object event, OutboxEvent.Builder outboxEvent);
}
