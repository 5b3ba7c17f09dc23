package io.txoutbox.spring.modulith;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Serializes payloads with the application's Jackson 2 {@link ObjectMapper}, for an application that
 * configures only Jackson 2 ({@code spring-boot-jackson2}). Loaded only when Jackson 2 is on the class path.
 */
final class Jackson2PayloadSerializer implements ExternalizedPayloadSerializer {
    private final ObjectMapper mapper;

    private Jackson2PayloadSerializer(ObjectMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    /** @return a serializer on the context's unique (or primary) {@code ObjectMapper}, or {@code null} if none */
    static ExternalizedPayloadSerializer fromContext(ListableBeanFactory beans) {
        ObjectMapper mapper = beans.getBeanProvider(ObjectMapper.class).getIfAvailable();
        return mapper == null ? null : new Jackson2PayloadSerializer(mapper);
    }

    @Override
    public byte[] serialize(Object payload) {
        try {
            return mapper.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "the application's Jackson 2 ObjectMapper";
    }
}
