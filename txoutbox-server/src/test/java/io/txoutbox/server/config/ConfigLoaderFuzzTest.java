package io.txoutbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.txoutbox.Redaction;
import io.txoutbox.server.yaml.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The YAML configuration loader under fuzzed input (RELIABILITY.md, "Fuzzing"): any text is either a
 * loaded configuration or the loader's {@link ConfigException}, whose message starts with the key at
 * fault ({@code sources[0].relay.batch-size: ...}, {@code (file): not valid YAML at line ...}); never
 * another exception, never a hang. The seeds are configurations the tests use, and the shapes that broke
 * it before: aliases, numbers YAML 1.1 rewrites, keys given twice, a second document.
 */
class ConfigLoaderFuzzTest {
    /** A few placeholders resolve, so that fuzzed files reach the checks behind them. */
    private static final Map<String, String> ENV =
            Map.of("TOKEN", "fuzz-token-0123456789abcdef", "PASSWORD", "0x12_34", "PORT", "8080");

    @FuzzTest(maxDuration = "10m")
    void any_text_loads_or_is_refused_naming_a_key(byte[] input) {
        String yaml = new String(input, StandardCharsets.UTF_8);
        ServerConfig config;
        try {
            config = ConfigLoader.parse(yaml, ENV::get);
        } catch (ConfigException refused) {
            assertThat(refused.key()).as("the key at fault").isNotBlank();
            // The message passes the one redaction path whole, so a key that holds a secret read earlier (a
            // fuzzed key may) starts the message masked.
            assertThat(refused.getMessage()).startsWith(Redaction.redact(refused.key()) + ": ");
            return;
        }
        assertThat(config.sources()).isNotEmpty();
        assertThat(config.admin().token().value()).hasSizeGreaterThanOrEqualTo(ConfigLoader.MIN_TOKEN_LENGTH);
    }
}
