package io.txoutbox.spring.modulith;

import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/** Serializes payloads with the application's Jackson 3 {@link JsonMapper} (Spring Boot 4's default). */
final class JacksonPayloadSerializer implements ExternalizedPayloadSerializer {
    private final JsonMapper mapper;

    JacksonPayloadSerializer(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
    }

    @Override
    public byte[] serialize(Object payload) {
        return mapper.writeValueAsBytes(payload);
    }

    @Override
    public String toString() {
        return "the application's Jackson 3 JsonMapper";
    }
}
