package io.txoutbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.txoutbox.EventHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The headers column's codec, what another program wrote (RELIABILITY.md, "Fuzzing"): any text at all
 * reads as a map of strings that round-trips, or fails with the {@link IllegalArgumentException} {@link
 * HeadersJson#read} documents, in one of its fixed messages, which quote no header value and no name
 * that is not a valid header name.
 */
class HeadersJsonReadFuzzTest {
    private static final Pattern MESSAGE = Pattern.compile("headers is not a JSON object"
            + "|headers is not valid JSON( \\(at character -?\\d+\\))?"
            + "|headers could not be read: \\w+"
            + "|headers ('(?<name>[^ ]*)'|entry \\d+ \\(not a valid name\\)) is a nested (START_OBJECT|START_ARRAY);"
            + " header values must be strings");

    @FuzzTest(maxDuration = "10m")
    void any_column_text_reads_as_string_headers_or_the_documented_error(FuzzedDataProvider data) {
        String column = data.consumeBoolean()
                ? new String(data.consumeRemainingAsBytes(), StandardCharsets.UTF_8)
                : data.consumeRemainingAsString();
        Map<String, String> headers;
        try {
            headers = HeadersJson.read(column);
        } catch (IllegalArgumentException refused) {
            Matcher message = MESSAGE.matcher(String.valueOf(refused.getMessage()));
            assertThat(message.matches())
                    .as("a fixed message: %s", refused.getMessage())
                    .isTrue();
            String name = message.group("name");
            if (name != null) {
                assertThat(EventHeaders.isValidName(name))
                        .as("only a valid name is quoted")
                        .isTrue();
            }
            return;
        }
        assertThat(headers).doesNotContainValue(null);
        assertThat(HeadersJson.read(HeadersJson.write(headers))).containsExactlyEntriesOf(headers);
    }
}
