package io.txoutbox.webhook;

import static io.txoutbox.webhook.WebhookPublisherTest.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every setting is checked at build(), with a message naming the setting; secrets never show. */
class WebhookConfigurationTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "ftp://hooks.example.com/x          | scheme 'ftp' is not allowed; use http or https",
                "file:///etc/passwd                 | scheme 'file' is not allowed",
                "hooks.example.com/x                | has no scheme",
                "https://user:pw@hooks.example.com/ | carries user info",
                "https://hooks.example.com/#frag    | has a fragment",
                "https:///nohost                    | has no host",
                "https://hooks.example.com/a b      | is not a valid URI",
            })
    void a_bad_url_is_refused(String url, String message) {
        assertRefused(() -> WebhookEndpoint.of(url, SECRET), "WebhookEndpoint.url", message);
    }

    @Test
    void http_and_https_in_any_case_are_accepted_and_named_by_host_and_path() {
        assertThat(WebhookEndpoint.of("HTTPS://hooks.example.com/in?token=x", SECRET)
                        .name())
                .isEqualTo("hooks.example.com/in");
        assertThat(WebhookEndpoint.of("http://hooks.example.com:8080", SECRET).name())
                .isEqualTo("hooks.example.com:8080/");
    }

    @Test
    void secrets_are_required_decoded_and_long_enough() {
        assertRefused(
                () -> WebhookEndpoint.builder("https://hooks.example.com/").build(),
                "WebhookEndpoint.secret",
                "has no secret");
        assertRefused(
                () -> WebhookEndpoint.of("https://hooks.example.com/", "short-secret"),
                "WebhookEndpoint 'hooks.example.com/' secret #1",
                "secret #1 is 12 bytes; the minimum is 16 bytes");
        assertRefused(
                () -> WebhookEndpoint.of("https://hooks.example.com/", "whsec_c2hvcnQ="),
                "WebhookEndpoint 'hooks.example.com/' secret #1",
                "is 5 bytes");
        assertThatThrownBy(() -> WebhookEndpoint.builder("https://hooks.example.com/")
                        .secret(SECRET)
                        .secret("whsec_%%%%-this-is-not-base64")
                        .build())
                .hasMessageContaining("secret #2 starts with 'whsec_' but the rest is not valid base64")
                .hasMessageNotContaining("%%%%");
    }

    @Test
    void event_type_filters_are_exact_types_or_prefixes() {
        assertRefused(
                () -> WebhookEndpoint.builder("https://h.example.com/")
                        .secret(SECRET)
                        .eventTypes("or*der")
                        .build(),
                "WebhookEndpoint.eventTypes",
                "filter 'or*der' is invalid");
        WebhookEndpoint e = WebhookEndpoint.builder("https://h.example.com/")
                .secret(SECRET)
                .eventTypes("order.*", "invoice.paid")
                .build();
        assertThat(e.accepts("order.placed")).isTrue();
        assertThat(e.accepts("invoice.paid")).isTrue();
        assertThat(e.accepts("invoice.paid.v2")).isFalse();
        assertThat(e.accepts("orders")).isFalse();
        assertThat(WebhookEndpoint.of("https://h.example.com/", SECRET).accepts("anything"))
                .isTrue();
    }

    @Test
    void reserved_restricted_and_invalid_headers_are_refused() {
        assertRefused(() -> endpointWithHeader("Webhook-Signature", "x"), "WebhookEndpoint.header", "is reserved");
        assertRefused(() -> endpointWithHeader("Content-Type", "text/plain"), "WebhookEndpoint.header", "is reserved");
        assertRefused(() -> endpointWithHeader("Host", "evil.example"), "WebhookEndpoint.header", "refused by the JDK");
        assertRefused(() -> endpointWithHeader("x-token", "a\r\nb"), "WebhookEndpoint.header", "refused by the JDK");
    }

    private static WebhookEndpoint endpointWithHeader(String name, String value) {
        return WebhookEndpoint.builder("https://h.example.com/")
                .secret(SECRET)
                .header(name, value)
                .build();
    }

    @Test
    void the_publisher_checks_its_settings() {
        WebhookEndpoint e = WebhookEndpoint.of("https://h.example.com/", SECRET);
        assertRefused(() -> WebhookPublisher.builder().build(), "WebhookPublisher.endpoint", "has no endpoint");
        assertRefused(
                () -> WebhookPublisher.builder().endpoint(e).endpoint(e).build(),
                "WebhookPublisher.endpoint",
                "two endpoints named 'h.example.com/'");
        assertRefused(
                () -> WebhookPublisher.builder()
                        .endpoint(e)
                        .connectTimeout(Duration.ZERO)
                        .build(),
                "WebhookPublisher.connectTimeout",
                "WebhookPublisher.connectTimeout is 0s");
        assertRefused(
                () -> WebhookPublisher.builder()
                        .endpoint(e)
                        .requestTimeout(Duration.ofSeconds(-1))
                        .build(),
                "WebhookPublisher.requestTimeout",
                "is PT-1S");
        assertRefused(
                () -> WebhookPublisher.builder()
                        .endpoint(e)
                        .maxConcurrentRequests(0)
                        .build(),
                "WebhookPublisher.maxConcurrentRequests",
                "is 0; it must be between 1 and 10000");
        assertRefused(
                () -> WebhookPublisher.builder()
                        .endpoint(e)
                        .rememberAcceptedDeliveries(-1)
                        .build(),
                "WebhookPublisher.rememberAcceptedDeliveries",
                "is -1");
    }

    @Test
    void to_string_shows_no_secret() {
        WebhookEndpoint e = WebhookEndpoint.builder("https://h.example.com/in?key=query-secret")
                .name("billing")
                .secret(SECRET)
                .secret("a-plain-secret-of-some-length")
                .eventTypes("order.*")
                .build();
        assertThat(e.toString())
                .isEqualTo("WebhookEndpoint[name=billing, url=https://h.example.com/in?****, 2 secrets (****), "
                        + "eventTypes=[order.*], headers=[]]");
        try (WebhookPublisher p = WebhookPublisher.builder().endpoint(e).build()) {
            assertThat(p.toString()).contains(e.toString()).doesNotContain("plain", "query-secret");
        }
    }

    private static void assertRefused(Supplier<?> build, String field, String message) {
        assertThatThrownBy(build::get)
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining(message)
                .extracting(ex -> ((OutboxValidationException) ex).field())
                .isEqualTo(field);
    }
}
