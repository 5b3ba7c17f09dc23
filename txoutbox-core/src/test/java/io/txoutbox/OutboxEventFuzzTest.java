package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Event validation and building under fuzzed input (RELIABILITY.md, "Fuzzing"): every field of the
 * builder fuzzed, then the append-time checks (payload size and JSON, due time). Property: the result is
 * a valid event, or an {@link OutboxValidationException} that names an {@code OutboxEvent} field and
 * quotes none of the input; any other exception is a finding.
 *
 * <p>A quote is detected two ways: the canary {@value #CANARY}, which the harness may put into any text
 * and into the payload at a fuzzed place, must never reach a message; nor may any input text of five or
 * more characters holding a character outside printable ASCII (no message template has one). A header
 * name that is valid is the field, and may be quoted.
 */
class OutboxEventFuzzTest {
    static final String CANARY = "sk_live_Zq9";

    private static final Instant EARLIEST = EventValidator.EARLIEST_TIME;
    private static final Instant LATEST = EventValidator.LATEST_TIME;

    @FuzzTest(maxDuration = "10m")
    void building_an_event_gives_a_valid_event_or_a_validation_error_quoting_no_input(FuzzedDataProvider data) {
        List<String> inputs = new ArrayList<>();
        String eventType = text(data, inputs);
        String aggregateType = text(data, inputs);
        String aggregateId = text(data, inputs);
        OutboxEvent.Builder builder = OutboxEvent.builder(eventType).aggregate(aggregateType, aggregateId);
        UUID id = data.consumeBoolean() ? new UUID(data.consumeLong(), data.consumeLong()) : null;
        if (id != null || data.consumeBoolean()) {
            builder.id(id);
        }
        int version = data.consumeBoolean() ? data.consumeInt() : 1;
        builder.version(version);

        byte[] payload;
        String contentType;
        if (data.consumeBoolean()) {
            contentType = OutboxEvent.APPLICATION_JSON;
            String json = withCanary(data, data.consumeString(200));
            payload = json.getBytes(StandardCharsets.UTF_8);
            builder.jsonPayload(json);
        } else {
            contentType = data.pickValue(new String[] {
                "application/json", "application/cloudevents+json; charset=utf-8", "text/plain", "", null, "*"
            });
            if ("*".equals(contentType)) {
                contentType = text(data, inputs);
            }
            payload = data.consumeBoolean()
                    ? null
                    : withCanary(data, data.consumeString(200)).getBytes(StandardCharsets.UTF_8);
            builder.payload(payload, contentType);
        }

        Map<String, String> headers = new LinkedHashMap<>();
        List<String> validNames = new ArrayList<>();
        int headerCount = data.consumeInt(0, 66);
        for (int i = 0; i < headerCount && data.remainingBytes() > 0; i++) {
            String name = text(data, inputs);
            String value = text(data, inputs);
            if (EventHeaders.isValidName(name)) {
                validNames.add(name);
            }
            headers.put(name, value);
            builder.header(name, value);
        }
        String tenant = data.consumeBoolean() ? text(data, inputs) : null;
        String destination = data.consumeBoolean() ? text(data, inputs) : null;
        builder.tenant(tenant).destination(destination);
        Instant availableAt = data.consumeBoolean() ? instant(data) : null;
        Duration delay =
                data.consumeBoolean() ? Duration.ofSeconds(data.consumeLong(), data.consumeInt(0, 999_999_999)) : null;
        builder.availableAt(availableAt).delay(delay);
        Integer maxAttempts = data.consumeBoolean() ? data.consumeInt() : null;
        builder.maxAttempts(maxAttempts);
        int maxPayloadBytes = data.consumeInt(0, 4096);
        Instant now = Instant.ofEpochSecond(
                data.consumeLong(EARLIEST.getEpochSecond(), LATEST.getEpochSecond()), data.consumeInt(0, 999_999));

        OutboxEvent event;
        try {
            event = builder.build();
            EventValidator.checkPayload(event, maxPayloadBytes);
            EventValidator.checkDue(event, now);
        } catch (OutboxValidationException rejected) {
            assertQuotesNoInput(rejected, inputs, validNames);
            return;
        }
        assertThat(event.eventType()).isEqualTo(eventType);
        assertThat(event.aggregateType()).isEqualTo(aggregateType);
        assertThat(event.aggregateId()).isEqualTo(aggregateId);
        assertThat(event.eventVersion()).isEqualTo(version).isPositive();
        assertThat(event.payload()).isEqualTo(payload);
        assertThat(event.payloadSize()).isLessThanOrEqualTo(maxPayloadBytes);
        assertThat(event.contentType()).isEqualTo(contentType);
        assertThat(event.headers()).isEqualTo(headers);
        assertThat(event.tenantId()).isEqualTo(tenant);
        assertThat(event.destination()).isEqualTo(destination);
        if (availableAt != null) {
            assertThat(availableAt).isBetween(EARLIEST, LATEST);
        }
        if (delay != null) {
            assertThat(now.plus(delay)).isBetween(EARLIEST, LATEST);
        }
        if (maxAttempts != null) {
            assertThat(maxAttempts).isBetween(1, EventValidator.MAX_ATTEMPTS_LIMIT);
        }
    }

    private static void assertQuotesNoInput(
            OutboxValidationException rejected, List<String> inputs, List<String> validNames) {
        String message = rejected.getMessage();
        assertThat(rejected.field()).startsWith("OutboxEvent.");
        assertThat(message).startsWith(rejected.field());
        if (validNames.stream().noneMatch(name -> name.contains(CANARY))) {
            assertThat(message).doesNotContain(CANARY);
        }
        for (String input : inputs) {
            if (input != null
                    && input.length() >= 5
                    && !input.chars().allMatch(c -> c >= 0x20 && c < 0x7F)
                    && validNames.stream().noneMatch(name -> name.contains(input))) {
                assertThat(message).doesNotContain(input);
            }
        }
    }

    /** A fuzzed text: any string (unpaired surrogates and control characters included), maybe the canary. */
    private static String text(FuzzedDataProvider data, List<String> inputs) {
        String text = data.consumeBoolean() ? null : withCanary(data, data.consumeString(300));
        inputs.add(text);
        return text;
    }

    private static String withCanary(FuzzedDataProvider data, String text) {
        if (!data.consumeBoolean()) {
            return text;
        }
        int at = data.consumeInt(0, text.length());
        return text.substring(0, at) + CANARY + text.substring(at);
    }

    /** Any instant java.time can hold, the far ends included. */
    private static Instant instant(FuzzedDataProvider data) {
        return Instant.ofEpochSecond(
                data.consumeLong(Instant.MIN.getEpochSecond(), Instant.MAX.getEpochSecond()),
                data.consumeInt(0, 999_999_999));
    }
}
