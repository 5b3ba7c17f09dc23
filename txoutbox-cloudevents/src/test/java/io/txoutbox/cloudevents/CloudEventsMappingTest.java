package io.txoutbox.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.provider.EventFormatProvider;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CloudEventsMappingTest {
    private static final Instant CREATED = Instant.parse("2030-01-02T03:04:05.123456Z");
    private static final UUID ID = UUID.fromString("01890a5d-ac96-774b-bcce-b302099a8057");

    @Test
    void an_event_maps_to_the_cloudevents_attributes_with_its_payload_as_data() {
        CloudEvent ce = CloudEventsMapping.source("https://orders.example.com/outbox")
                .toCloudEvent(event("application/json", "{\"total\": 12}".getBytes(StandardCharsets.UTF_8)));

        assertThat(ce.getSpecVersion()).isEqualTo(SpecVersion.V1);
        assertThat(ce.getId()).isEqualTo(ID.toString());
        assertThat(ce.getSource()).isEqualTo(URI.create("https://orders.example.com/outbox"));
        assertThat(ce.getType()).isEqualTo("order.placed");
        assertThat(ce.getSubject()).isEqualTo("o-7");
        assertThat(ce.getTime()).isEqualTo(OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 123_456_000, ZoneOffset.UTC));
        assertThat(ce.getDataContentType()).isEqualTo("application/json");
        assertThat(ce.getDataSchema()).isNull();
        assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo(3);
        assertThat(ce.getData().toBytes()).asString(StandardCharsets.UTF_8).isEqualTo("{\"total\": 12}");
    }

    @Test
    void the_data_schema_comes_from_the_function_when_given() {
        CloudEventsMapping mapping = CloudEventsMapping.builder("/orders")
                .dataSchema(e -> URI.create("https://schemas.example.com/" + e.eventType() + "/v" + e.eventVersion()))
                .build();

        assertThat(mapping.toCloudEvent(event("application/json", "{}".getBytes(StandardCharsets.UTF_8)))
                        .getDataSchema())
                .isEqualTo(URI.create("https://schemas.example.com/order.placed/v3"));
    }

    @Test
    void binary_mode_keeps_the_headers_that_are_not_attributes_and_drops_those_that_are() {
        Map<String, String> other = CloudEventsMapping.source("/orders")
                .otherHeaders(event("application/json", "{}".getBytes(StandardCharsets.UTF_8)));

        assertThat(other)
                .containsEntry("aggregate-type", "order")
                .containsEntry("tenant-id", "t-1")
                .containsEntry("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .containsEntry("correlation-id", "c-9")
                .containsEntry("x-own", "mine")
                .doesNotContainKeys("event-id", "event-type", "event-version", "aggregate-id", "content-type");
    }

    @Test
    void structured_mode_is_the_json_format_with_the_other_headers_as_extensions() {
        byte[] json = CloudEventsMapping.source("/orders")
                .toStructured(event("application/json", "{\"total\":12}".getBytes(StandardCharsets.UTF_8)));

        EventFormat format =
                EventFormatProvider.getInstance().resolveFormat(CloudEventsMapping.STRUCTURED_CONTENT_TYPE);
        CloudEvent ce = format.deserialize(json);
        assertThat(ce.getId()).isEqualTo(ID.toString());
        assertThat(ce.getSubject()).isEqualTo("o-7");
        assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo(3);
        assertThat(ce.getExtension("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        assertThat(ce.getExtension("correlationid")).isEqualTo("c-9");
        assertThat(ce.getExtension("tenantid")).isEqualTo("t-1");
        assertThat(ce.getExtension("aggregatetype")).isEqualTo("order");
        assertThat(ce.getExtension("xown")).isEqualTo("mine");
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"data\":{\"total\":12}");
    }

    @Test
    void structured_mode_keeps_binary_payloads_exactly_in_data_base64() {
        byte[] payload = {0, 1, 2, (byte) 0xFF, 10};
        byte[] json = CloudEventsMapping.source("/orders").toStructured(event("application/octet-stream", payload));

        CloudEvent ce = EventFormatProvider.getInstance()
                .resolveFormat(CloudEventsMapping.STRUCTURED_CONTENT_TYPE)
                .deserialize(json);
        assertThat(ce.getData().toBytes()).isEqualTo(payload);
        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"data_base64\"");
    }

    @Test
    void a_header_whose_extension_name_is_reserved_or_taken_is_left_out_of_structured_mode() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Sub-ject", "not the subject");
        headers.put("x-a", "first");
        headers.put("xa", "second");
        headers.put("--", "nothing left");
        ClaimedEvent event = new ClaimedEvent(
                ID,
                "order",
                "o-7",
                "order.placed",
                1,
                new byte[0],
                "text/plain",
                headers,
                null,
                null,
                CREATED,
                1,
                null);

        CloudEvent ce = EventFormatProvider.getInstance()
                .resolveFormat(CloudEventsMapping.STRUCTURED_CONTENT_TYPE)
                .deserialize(CloudEventsMapping.source("/orders").toStructured(event));
        assertThat(ce.getSubject()).isEqualTo("o-7");
        assertThat(ce.getExtension("xa")).isEqualTo("first");
        assertThat(ce.getExtensionNames()).containsExactlyInAnyOrder("eventversion", "aggregatetype", "xa");
    }

    @Test
    void a_json_typed_payload_that_is_not_json_travels_as_base64_in_a_readable_envelope() {
        EventFormat format =
                EventFormatProvider.getInstance().resolveFormat(CloudEventsMapping.STRUCTURED_CONTENT_TYPE);
        for (String payload : new String[] {"{\"a\": sk_live_1", "{} {}", "", "[" + "1".repeat(1_001) + "]"}) {
            byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
            byte[] structured = CloudEventsMapping.source("/orders").toStructured(event("application/json", bytes));

            CloudEvent ce = format.deserialize(structured);
            assertThat(ce.getDataContentType()).isEqualTo("application/json");
            assertThat(ce.getData().toBytes()).as(payload).isEqualTo(bytes);
        }
        byte[] latin1 = {'"', (byte) 0xE9, '"'};
        assertThat(format.deserialize(
                                CloudEventsMapping.source("/orders").toStructured(event("application/json", latin1)))
                        .getData()
                        .toBytes())
                .isEqualTo(latin1);
    }

    @Test
    void header_values_are_percent_encoded_as_the_http_and_nats_bindings_say() {
        assertThat(CloudEventsMapping.percentEncode("Euro \u20AC \uD83D\uDE00"))
                .isEqualTo("Euro%20%E2%82%AC%20%F0%9F%98%80");
        assertThat(CloudEventsMapping.percentEncode("100% \"sure\"")).isEqualTo("100%25%20%22sure%22");
        assertThat(CloudEventsMapping.percentEncode("2030-01-02T03:04:05Z")).isEqualTo("2030-01-02T03:04:05Z");
    }

    @Test
    void a_missing_blank_or_malformed_source_is_refused_naming_the_setting() {
        assertThatThrownBy(() -> CloudEventsMapping.source(" "))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("CloudEventsMapping.source is blank");
        assertThatThrownBy(() -> CloudEventsMapping.source(null))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("CloudEventsMapping.source is missing");
        assertThatThrownBy(() -> CloudEventsMapping.source("http://exa mple.com"))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("CloudEventsMapping.source is not a URI-reference: Illegal character in authority at"
                        + " index 7 of 19 characters")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("CloudEventsMapping.source");
    }

    private static ClaimedEvent event(String contentType, byte[] payload) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        headers.put("correlation-id", "c-9");
        headers.put("x-own", "mine");
        return new ClaimedEvent(
                ID, "order", "o-7", "order.placed", 3, payload, contentType, headers, "t-1", null, CREATED, 1, null);
    }
}
