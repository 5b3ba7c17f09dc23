package io.txoutbox.webhook;

import static io.txoutbox.webhook.Events.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.SettableClock;
import io.txoutbox.webhook.TestReceiver.Request;
import io.txoutbox.webhook.WebhookVerificationException.Problem;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The signing scheme end to end: requests the publisher really sent, captured by a receiver, then verified
 * (and tampered with) by {@link WebhookVerifier}; plus an independent HMAC computation of the scheme.
 */
class WebhookVerifierTest {
    static final String OLD = "whsec_" + Base64.getEncoder().encodeToString(bytes("old-secret-of-thirty-two-bytes!!"));
    static final String NEW = "whsec_" + Base64.getEncoder().encodeToString(bytes("new-secret-of-thirty-two-bytes!!"));
    static final String OTHER =
            "whsec_" + Base64.getEncoder().encodeToString(bytes("another-secret-thirty-two-bytes!"));

    private final SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private TestReceiver receiver;

    @BeforeEach
    void start() throws Exception {
        // This receiver verifies nothing itself (any secret would do): the tests verify the captured requests.
        receiver = new TestReceiver(WebhookVerifier.builder().secret(OTHER).build());
        receiver.respond(r -> TestReceiver.Response.of(204));
    }

    @AfterEach
    void stop() {
        receiver.close();
    }

    private Request send(ClaimedEvent event, String... secrets) throws Exception {
        WebhookEndpoint.Builder endpoint = WebhookEndpoint.builder(receiver.url("/hooks"));
        for (String s : secrets) {
            endpoint.secret(s);
        }
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                .endpoint(endpoint.build())
                .allowPrivateNetworks(true)
                .clock(clock)
                .build()) {
            List<PublishOutcome> outcomes =
                    publisher.publish(List.of(event)).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(outcomes).containsExactly(PublishOutcome.PUBLISHED);
        }
        return receiver.requests().get(receiver.requests().size() - 1);
    }

    private WebhookVerifier verifier(String... secrets) {
        WebhookVerifier.Builder b = WebhookVerifier.builder().clock(clock);
        for (String s : secrets) {
            b.secret(s);
        }
        return b.build();
    }

    private static void verify(WebhookVerifier verifier, Request r, byte[] body) {
        Map<String, List<String>> headers = new HashMap<>();
        // Mixed case, as some servers deliver them: names match case-insensitively.
        r.headers().forEach((name, value) -> headers.put(name.toUpperCase(Locale.ROOT), List.of(value)));
        verifier.verify(headers, body);
    }

    @Test
    void the_signature_is_hmac_sha256_of_id_timestamp_and_body_under_the_decoded_whsec_key() throws Exception {
        ClaimedEvent event = event("order.placed");
        Request r = send(event, NEW);

        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(NEW.substring("whsec_".length())), "HmacSHA256"));
        String signed = event.id() + "." + clock.instant().getEpochSecond() + "." + event.payloadAsString();
        String expected = "v1," + Base64.getEncoder().encodeToString(mac.doFinal(bytes(signed)));

        assertThat(r.headers()).containsEntry("webhook-signature", expected);
        assertThat(r.headers()).containsEntry("webhook-timestamp", "1893456000");
    }

    @Test
    void a_plain_secret_is_used_as_its_utf8_bytes() throws Exception {
        String plain = "a plain secret, not whsec_ encoded";
        ClaimedEvent event = event("order.placed");
        Request r = send(event, plain);

        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(bytes(plain), "HmacSHA256"));
        String signed = event.id() + "." + clock.instant().getEpochSecond() + "." + event.payloadAsString();
        assertThat(r.headers().get("webhook-signature"))
                .isEqualTo("v1," + Base64.getEncoder().encodeToString(mac.doFinal(bytes(signed))));
        assertThatCode(() -> verify(verifier(plain), r, r.body())).doesNotThrowAnyException();
    }

    @Test
    void the_verifier_accepts_what_the_publisher_signed() throws Exception {
        Request r = send(event("order.placed"), NEW);
        assertThatCode(() -> verify(verifier(NEW), r, r.body())).doesNotThrowAnyException();
        assertThatCode(() -> verifier(NEW)
                        .verify(
                                r.headers().get("webhook-id"),
                                r.headers().get("webhook-timestamp"),
                                r.headers().get("webhook-signature"),
                                r.body()))
                .doesNotThrowAnyException();
    }

    @Test
    void a_tampered_body_is_rejected() throws Exception {
        Request r = send(event("order.placed"), NEW);
        byte[] tampered = r.body().clone();
        tampered[tampered.length - 2] ^= 1;
        assertProblem(() -> verify(verifier(NEW), r, tampered), Problem.SIGNATURE_MISMATCH);
    }

    @Test
    void a_changed_id_or_timestamp_is_rejected() throws Exception {
        Request r = send(event("order.placed"), NEW);
        WebhookVerifier v = verifier(NEW);
        String sig = r.headers().get("webhook-signature");
        assertProblem(
                () -> v.verify("other-id", r.headers().get("webhook-timestamp"), sig, r.body()),
                Problem.SIGNATURE_MISMATCH);
        String later = Long.toString(clock.instant().getEpochSecond() + 1);
        assertProblem(() -> v.verify(r.eventId(), later, sig, r.body()), Problem.SIGNATURE_MISMATCH);
    }

    @Test
    void a_wrong_secret_is_rejected() throws Exception {
        Request r = send(event("order.placed"), NEW);
        assertProblem(() -> verify(verifier(OTHER), r, r.body()), Problem.SIGNATURE_MISMATCH);
    }

    @Test
    void a_stale_timestamp_is_rejected() throws Exception {
        Request r = send(event("order.placed"), NEW);
        clock.advance(Duration.ofMinutes(5).plusSeconds(1));
        assertProblem(() -> verify(verifier(NEW), r, r.body()), Problem.STALE_TIMESTAMP);
    }

    @Test
    void a_timestamp_within_the_tolerance_is_accepted_either_way() throws Exception {
        Request r = send(event("order.placed"), NEW);
        clock.advance(Duration.ofMinutes(5));
        assertThatCode(() -> verify(verifier(NEW), r, r.body())).doesNotThrowAnyException();
        clock.advance(Duration.ofMinutes(-10));
        assertThatCode(() -> verify(verifier(NEW), r, r.body())).doesNotThrowAnyException();
    }

    @Test
    void a_future_timestamp_is_rejected() throws Exception {
        Request r = send(event("order.placed"), NEW);
        clock.advance(Duration.ofMinutes(-5).minusSeconds(1));
        assertProblem(() -> verify(verifier(NEW), r, r.body()), Problem.FUTURE_TIMESTAMP);
    }

    @Test
    void the_tolerance_is_configurable() throws Exception {
        Request r = send(event("order.placed"), NEW);
        clock.advance(Duration.ofSeconds(31));
        WebhookVerifier strict = WebhookVerifier.builder()
                .secret(NEW)
                .clock(clock)
                .tolerance(Duration.ofSeconds(30))
                .build();
        assertProblem(() -> verify(strict, r, r.body()), Problem.STALE_TIMESTAMP);
    }

    @Test
    void missing_or_malformed_headers_are_rejected_by_name() throws Exception {
        Request r = send(event("order.placed"), NEW);
        WebhookVerifier v = verifier(NEW);
        String id = r.eventId();
        String ts = r.headers().get("webhook-timestamp");
        String sig = r.headers().get("webhook-signature");
        assertThatThrownBy(() -> v.verify(Map.of(), r.body()))
                .isInstanceOf(WebhookVerificationException.class)
                .hasMessage("header webhook-id is missing");
        assertProblem(() -> v.verify(id, null, sig, r.body()), Problem.MISSING_HEADER);
        assertProblem(() -> v.verify(id, ts, " ", r.body()), Problem.MISSING_HEADER);
        assertProblem(() -> v.verify(id, "yesterday", sig, r.body()), Problem.MALFORMED_TIMESTAMP);
        assertProblem(() -> v.verify(id, ts, "v2,abc", r.body()), Problem.MALFORMED_SIGNATURE);
        assertProblem(() -> v.verify(id, ts, "v1,!!notbase64", r.body()), Problem.MALFORMED_SIGNATURE);
        assertThatCode(() -> v.verify(id, ts, "v1a,whatever " + sig, r.body()))
                .as("other versions are ignored, the v1 entry counts")
                .doesNotThrowAnyException();
    }

    @Test
    void during_a_rotation_a_receiver_knowing_only_one_of_the_two_secrets_accepts() throws Exception {
        Request r = send(event("order.placed"), OLD, NEW);

        assertThat(r.headers().get("webhook-signature").split(" ")).hasSize(2).allMatch(s -> s.startsWith("v1,"));
        assertThatCode(() -> verify(verifier(NEW), r, r.body())).doesNotThrowAnyException();
        assertThatCode(() -> verify(verifier(OLD), r, r.body())).doesNotThrowAnyException();
        assertThatCode(() -> verify(verifier(OTHER, NEW), r, r.body())).doesNotThrowAnyException();
        assertProblem(() -> verify(verifier(OTHER), r, r.body()), Problem.SIGNATURE_MISMATCH);
    }

    @Test
    void the_verifier_checks_its_settings_and_never_shows_a_secret() {
        assertThatThrownBy(() -> WebhookVerifier.builder().build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("no secret");
        assertThatThrownBy(() -> WebhookVerifier.builder()
                        .secret(NEW)
                        .tolerance(Duration.ZERO)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("WebhookVerifier.tolerance is PT0S");
        assertThatThrownBy(() ->
                        WebhookVerifier.builder().secret("whsec_not base64!").build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("WebhookVerifier secret #1 starts with 'whsec_' but the rest is not valid base64")
                .hasMessageNotContaining("not base64!");
        assertThat(verifier(NEW, OLD).toString()).isEqualTo("WebhookVerifier[2 secrets (****), tolerance=PT5M]");
    }

    private static void assertProblem(Runnable verification, Problem problem) {
        assertThatThrownBy(verification::run)
                .isInstanceOf(WebhookVerificationException.class)
                .satisfies(e -> assertThat(((WebhookVerificationException) e).problem())
                        .as("problem of %s", e.getMessage())
                        .isEqualTo(problem));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
