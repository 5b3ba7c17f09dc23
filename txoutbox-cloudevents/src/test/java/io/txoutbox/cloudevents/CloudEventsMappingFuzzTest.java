package io.txoutbox.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.format.EventFormat;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonCloudEventData;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The CloudEvents mapping under fuzzed events and sources (RELIABILITY.md, "Fuzzing"). The events are
 * what a relay can hand a transport: any row that passes the relay's shape rules (those of {@link
 * OutboxEvent}, which the fuzzed fields must pass to be mapped), with any payload under any content type
 * and any creation time a database column holds. Properties: a source is a URI-reference or an {@link
 * OutboxValidationException} that does not quote it; an event maps to a CloudEvent that carries its id,
 * type, subject, time and payload, in binary mode to headers a protocol can carry and in structured
 * mode to JSON that the SDK reads back to the same event; or the mapping throws the {@link
 * IllegalArgumentException} its Javadoc names. Any other exception is a finding.
 */
class CloudEventsMappingFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final EventFormat JSON_FORMAT =
            EventFormatProvider.getInstance().resolveFormat(CloudEventsMapping.STRUCTURED_CONTENT_TYPE);

    @FuzzTest(maxDuration = "10m")
    void an_event_maps_to_a_cloudevent_that_reads_back_or_to_the_documented_error(FuzzedDataProvider data)
            throws IOException {
        CloudEventsMapping mapping = mapping(data.consumeString(100));
        if (mapping == null) {
            return;
        }
        ClaimedEvent event = claimedEvent(data);
        if (event == null) {
            return;
        }
        try {
            CloudEvent ce = mapping.toCloudEvent(event);
            assertThat(ce.getId()).isEqualTo(event.id().toString());
            assertThat(ce.getSource()).isEqualTo(mapping.source());
            assertThat(ce.getType()).isEqualTo(event.eventType());
            assertThat(ce.getSubject()).isEqualTo(event.aggregateId());
            assertThat(ce.getTime().toInstant()).isEqualTo(event.createdAt());
            assertThat(ce.getDataContentType()).isEqualTo(event.contentType());
            assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo(event.eventVersion());
            assertThat(ce.getData().toBytes()).isEqualTo(event.payload());

            Map<String, String> headers = mapping.binaryHeaders(event, "ce-", CloudEventsMapping::percentEncode);
            Map<String, String> attributes = mapping.binaryAttributes(event);
            Map<String, String> own = mapping.otherHeaders(event);
            headers.forEach((name, value) -> {
                if (name.regionMatches(true, 0, "ce-", 0, 3)) {
                    assertThat(value.chars().allMatch(c -> c > 0x20 && c < 0x7F))
                            .as("percent-encoded %s", name)
                            .isTrue();
                    String attribute = name.substring(3);
                    assertThat(percentDecode(value))
                            .as("%s decodes to its attribute or header", name)
                            .isEqualTo(attributes.containsKey(attribute) ? attributes.get(attribute) : own.get(name));
                }
            });

            byte[] structured = mapping.toStructured(event);
            CloudEvent back = JSON_FORMAT.deserialize(structured);
            assertThat(back.getId()).isEqualTo(ce.getId());
            assertThat(back.getSource()).isEqualTo(ce.getSource());
            assertThat(back.getType()).isEqualTo(ce.getType());
            assertThat(back.getSubject()).isEqualTo(ce.getSubject());
            assertThat(back.getTime().toInstant()).isEqualTo(event.createdAt());
            assertThat(back.getDataContentType()).isEqualTo(event.contentType());
            assertThat(back.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo(event.eventVersion());
            if (back.getData() instanceof JsonCloudEventData embedded) {
                assertThat(embedded.getNode()).as("an embedded JSON payload").isEqualTo(JSON.readTree(event.payload()));
            } else {
                byte[] carried =
                        back.getData() == null ? new byte[0] : back.getData().toBytes();
                assertThat(carried).as("the payload, exactly").isEqualTo(event.payload());
            }
        } catch (IllegalArgumentException documented) {
            assertThat(documented.getMessage()).isNotNull();
        }
    }

    /** @return the mapping, or {@code null} when the source was rightly refused */
    private static CloudEventsMapping mapping(String source) {
        try {
            CloudEventsMapping mapping = CloudEventsMapping.source(source);
            assertThat(mapping.source()).isEqualTo(URI.create(source));
            return mapping;
        } catch (OutboxValidationException refused) {
            assertThat(refused.field()).isEqualTo("CloudEventsMapping.source");
            // Only a text with a character outside printable ASCII is sure to be no part of the fixed
            // wording ("source", "character" may well be).
            if (source != null && !source.chars().allMatch(c -> c >= 0x20 && c < 0x7F)) {
                assertThat(refused.getMessage()).doesNotContain(source);
            }
            return null;
        }
    }

    /** @return an event as a relay may claim it, or {@code null} when the fields break the relay's rules */
    private static ClaimedEvent claimedEvent(FuzzedDataProvider data) {
        UUID id = new UUID(data.consumeLong(), data.consumeLong());
        String eventType = data.consumeString(80);
        String aggregateType = data.consumeString(40);
        String aggregateId = data.consumeString(80);
        int version = data.consumeInt();
        String contentType = data.pickValue(new String[] {
            "application/json", "application/vnd.a+json; charset=utf-8", "text/plain", "application/octet-stream", "*"
        });
        if (contentType.equals("*")) {
            contentType = data.consumeString(60);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        int count = data.consumeInt(0, 8);
        for (int i = 0; i < count; i++) {
            headers.put(data.consumeString(30), data.consumeString(60));
        }
        String tenant = data.consumeBoolean() ? data.consumeString(40) : null;
        // Any time the columns hold (see OutboxEvent.Builder#availableAt), at microseconds.
        Instant createdAt = Instant.ofEpochSecond(
                data.consumeLong(-30_610_224_000L, 253_402_300_799L), data.consumeInt(0, 999_999) * 1_000L);
        int attempt = data.consumeInt(1, 1_000);
        byte[] payload = data.consumeRemainingAsBytes();
        try {
            OutboxEvent.builder(eventType)
                    .id(id)
                    .aggregate(aggregateType, aggregateId)
                    .version(version)
                    .payload(new byte[0], contentType)
                    .headers(headers)
                    .tenant(tenant)
                    .build();
        } catch (OutboxValidationException notARow) {
            return null;
        }
        return new ClaimedEvent(
                id,
                aggregateType,
                aggregateId,
                eventType,
                version,
                payload,
                contentType,
                headers,
                tenant,
                null,
                createdAt.atOffset(ZoneOffset.UTC).toInstant(),
                attempt,
                null);
    }

    private static String percentDecode(String value) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%') {
                out.write(Integer.parseInt(value.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
