package io.txoutbox.spring.modulith;

import io.txoutbox.OutboxEvent;

/**
 * Turns the payload of an externalized event (the result of {@code EventExternalizationConfiguration.map})
 * into the bytes that the outbox stores and the relay publishes. By default the application's JSON mapper
 * does it: the Jackson 3 {@code JsonMapper} bean that Spring Boot 4 configures, or else a Jackson 2 {@code
 * ObjectMapper} bean, so {@code spring.jackson.*} settings, modules and mix-ins apply. Define a bean of this
 * type to use another format (Protobuf, Avro) or another mapper.
 */
public interface ExternalizedPayloadSerializer {

    /**
     * @param payload the mapped event, never {@code null}
     * @return the payload bytes, published as they are
     * @throws RuntimeException when the payload cannot be serialized; the publishing transaction then
     *     rolls back, so the business change and the event fail together
     */
    byte[] serialize(Object payload);

    /** @return the media type of what {@link #serialize} returns; JSON types are checked for validity at append */
    default String contentType() {
        return OutboxEvent.APPLICATION_JSON;
    }
}
