package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersJsonTest {

    @Test
    void headers_round_trip_with_characters_that_need_escaping() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("correlation-id", "c-\"1\"\\é");
        headers.put("traceparent", "00-abc-def-01");
        assertThat(HeadersJson.read(HeadersJson.write(headers))).isEqualTo(headers);
        assertThat(HeadersJson.write(Map.of())).isEqualTo("{}");
    }

    @Test
    void scalars_written_by_other_programs_become_text_and_nulls_are_dropped() {
        assertThat(HeadersJson.read("{\"n\":3,\"b\":true,\"x\":null}"))
                .containsExactly(Map.entry("n", "3"), Map.entry("b", "true"));
    }

    @Test
    void nested_values_and_non_objects_are_refused() {
        assertThatThrownBy(() -> HeadersJson.read("[1]")).hasMessage("headers is not a JSON object");
        assertThatThrownBy(() -> HeadersJson.read("{\"a\":[1]}")).hasMessageContaining("'a' is a nested START_ARRAY");
    }
}
