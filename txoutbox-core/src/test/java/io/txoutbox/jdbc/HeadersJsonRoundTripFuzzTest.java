package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The headers column's codec, what txoutbox writes (RELIABILITY.md, "Fuzzing"): any map of strings, NUL,
 * line breaks, unpaired surrogates and names that no append would accept included, reads back unchanged.
 */
class HeadersJsonRoundTripFuzzTest {
    @FuzzTest(maxDuration = "10m")
    void written_headers_read_back_unchanged(FuzzedDataProvider data) {
        Map<String, String> headers = new LinkedHashMap<>();
        int count = data.consumeInt(0, 70);
        for (int i = 0; i < count && data.remainingBytes() > 0; i++) {
            headers.put(text(data), text(data));
        }
        assertThat(HeadersJson.read(HeadersJson.write(headers))).containsExactlyEntriesOf(headers);
    }

    /** Any string, unpaired surrogates included: consumeString gives valid UTF-16 only half the time. */
    private static String text(FuzzedDataProvider data) {
        if (data.consumeBoolean()) {
            return data.consumeString(40);
        }
        StringBuilder text = new StringBuilder();
        int length = data.consumeInt(0, 40);
        for (int i = 0; i < length && data.remainingBytes() > 0; i++) {
            text.append(data.consumeChar());
        }
        return text.toString();
    }
}
