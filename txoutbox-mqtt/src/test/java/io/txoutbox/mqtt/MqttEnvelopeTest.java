package io.txoutbox.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The envelope's format, pure logic: what is embedded as JSON, what goes base64, and exact round trips. */
class MqttEnvelopeTest {
    private static final Map<String, String> HEADERS = headers();

    private static Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("event-id", "0190b6a2-0000-7000-8000-000000000001");
        h.put("content-type", "application/json");
        h.put("note", "quotes \" and \\ and ünïcödé");
        return h;
    }

    @Test
    void a_json_payload_is_embedded_as_raw_json_and_decodes_to_the_same_bytes() {
        byte[] payload = "{\"total\":12.50,\"items\":[1,2],\"name\":\"Zoë \\u00e9\"}".getBytes(StandardCharsets.UTF_8);
        byte[] message = MqttEnvelope.encode(HEADERS, payload, "application/json");
        String text = new String(message, StandardCharsets.UTF_8);
        assertThat(text).startsWith("{\"headers\":{").contains(",\"payload\":{\"total\":12.50,");
        MqttEnvelope decoded = MqttEnvelope.decode(message);
        assertThat(decoded.payload()).isEqualTo(payload);
        assertThat(decoded.headers()).containsExactlyEntriesOf(HEADERS);
    }

    @Test
    void json_scalars_and_vendor_json_types_are_embedded_too() {
        for (String json : new String[] {"42", "\"text\"", "null", "[]", "true"}) {
            byte[] payload = json.getBytes(StandardCharsets.UTF_8);
            byte[] message = MqttEnvelope.encode(HEADERS, payload, "application/vnd.order+json; charset=utf-8");
            assertThat(new String(message, StandardCharsets.UTF_8)).contains("\"payload\":" + json + "}");
            assertThat(MqttEnvelope.decode(message).payload()).isEqualTo(payload);
        }
    }

    @Test
    void json_that_would_not_keep_its_exact_bytes_goes_base64_and_still_round_trips() {
        String[] payloads = {" {\"a\":1}", "{\"a\":1}\n", "{\"a\":", "{\"a\":1} {\"b\":2}", "\uFEFF{}"};
        for (String json : payloads) {
            byte[] payload = json.getBytes(StandardCharsets.UTF_8);
            byte[] message = MqttEnvelope.encode(HEADERS, payload, "application/json");
            assertThat(new String(message, StandardCharsets.UTF_8)).contains("\"payloadBase64\":");
            assertThat(MqttEnvelope.decode(message).payload()).isEqualTo(payload);
        }
        byte[] latin1 = "{\"a\":\"é\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(MqttEnvelope.decode(MqttEnvelope.encode(HEADERS, latin1, "application/json"))
                        .payload())
                .isEqualTo(latin1);
        byte[] utf16 = "{}".getBytes(StandardCharsets.UTF_16);
        assertThat(MqttEnvelope.embeddableJson(utf16, "application/json; charset=utf-16"))
                .isNull();
    }

    @Test
    void a_binary_payload_goes_base64_and_decodes_to_the_same_bytes() {
        byte[] binary = new byte[1024];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i * 31);
        }
        byte[] message = MqttEnvelope.encode(HEADERS, binary, "application/octet-stream");
        assertThat(MqttEnvelope.decode(message).payload()).isEqualTo(binary);
        assertThat(MqttEnvelope.decode(MqttEnvelope.encode(Map.of(), new byte[0], "application/json"))
                        .payload())
                .isEmpty();
    }

    @Test
    void unknown_members_are_ignored_so_the_format_can_grow() {
        String message =
                "{\"v\":2,\"headers\":{\"event-id\":\"x\"},\"extra\":{\"a\":[1]},\"payload\":[1, 2] ,\"more\":1}";
        MqttEnvelope decoded = MqttEnvelope.decode(message.getBytes(StandardCharsets.UTF_8));
        assertThat(decoded.header("event-id")).isEqualTo("x");
        assertThat(new String(decoded.payload(), StandardCharsets.UTF_8)).isEqualTo("[1, 2]");
    }

    @Test
    void what_is_not_an_envelope_is_rejected_with_the_reason() {
        assertThatThrownBy(() -> MqttEnvelope.decode("plain".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a txoutbox MQTT envelope");
        assertThatThrownBy(() -> MqttEnvelope.decode("{\"payload\":1}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("no headers");
        assertThatThrownBy(() -> MqttEnvelope.decode("{\"headers\":{}}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("neither payload nor payloadBase64");
    }

    @Test
    void to_string_shows_no_payload_or_header_values() {
        MqttEnvelope envelope = new MqttEnvelope(HEADERS, "secret".getBytes(StandardCharsets.UTF_8));
        assertThat(envelope.toString())
                .doesNotContain("secret")
                .doesNotContain("0190b6a2")
                .contains("6 bytes");
    }

    @Test
    void an_envelope_that_is_not_json_is_rejected_without_quoting_its_text() {
        byte[] message =
                "{\"headers\": {}, \"payload\": sk_live_4eC39HqLyjWDarjtT1zdp7dc}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> MqttEnvelope.decode(message))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a txoutbox MQTT envelope: it is not valid JSON (at byte offset ")
                .hasMessageNotContaining("sk_live")
                .hasNoCause();
    }
}
