package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutboxEventTest {

    @Test
    void to_string_never_shows_the_payload_or_header_values() {
        OutboxEvent e = OutboxEvent.builder("user.created")
                .aggregate("user", "u-1")
                .jsonPayload("{\"email\":\"alice@example.com\"}")
                .header("authorization-hint", "secret-value")
                .build();
        assertThat(e.toString())
                .doesNotContain("alice@example.com")
                .doesNotContain("secret-value")
                .contains("payload=29 bytes application/json")
                .contains("authorization-hint");
    }

    @Test
    void the_payload_cannot_be_changed_from_outside() {
        byte[] bytes = "{}".getBytes(StandardCharsets.UTF_8);
        OutboxEvent e = OutboxEvent.builder("t")
                .aggregate("a", "1")
                .payload(bytes, "application/json")
                .build();
        bytes[0] = 'x';
        e.payload()[1] = 'y';
        assertThat(e.payloadAsString()).isEqualTo("{}");
    }

    @Test
    void json_content_types_are_recognised_with_parameters_and_suffixes() {
        assertThat(EventValidator.isJson("application/json")).isTrue();
        assertThat(EventValidator.isJson("Application/JSON; charset=utf-8")).isTrue();
        assertThat(EventValidator.isJson("application/cloudevents+json")).isTrue();
        assertThat(EventValidator.isJson("application/x-protobuf")).isFalse();
        assertThat(EventValidator.isJson("text/plain")).isFalse();
    }

    @Test
    void events_are_equal_by_value() {
        OutboxEvent a =
                OutboxEvent.builder("t").aggregate("a", "1").jsonPayload("{}").build();
        OutboxEvent b = OutboxEvent.builder("t")
                .id(a.id())
                .aggregate("a", "1")
                .jsonPayload("{}")
                .build();
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a)
                .isNotEqualTo(OutboxEvent.builder("t")
                        .aggregate("a", "1")
                        .jsonPayload("{}")
                        .build());
    }
}
