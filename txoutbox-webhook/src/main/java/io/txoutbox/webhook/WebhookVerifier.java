package io.txoutbox.webhook;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.webhook.WebhookVerificationException.Problem;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Verifies webhooks on the receiving side, per Standard Webhooks: the {@code webhook-signature} must hold a
 * {@code v1} HMAC-SHA256 of {@code webhook-id + "." + webhook-timestamp + "." + body} under one of the
 * receiver's secrets (compared in constant time), and the timestamp must lie within the tolerance of the
 * receiver's clock (replays of old requests are refused). Thread-safe.
 *
 * <pre>{@code
 * WebhookVerifier verifier = WebhookVerifier.builder().secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").build();
 * try {
 *     verifier.verify(request.headers(), body);    // the exact bytes received, before any parsing
 * } catch (WebhookVerificationException e) {
 *     return 401;
 * }
 * }</pre>
 *
 * Deduplicate by {@code webhook-id}: it is the event id, the same on every retry.
 */
public final class WebhookVerifier {
    private final List<byte[]> keys;
    private final Duration tolerance;
    private final InstantSource clock;
    private final int secretCount;

    private WebhookVerifier(Builder b, List<byte[]> keys) {
        this.keys = List.copyOf(keys);
        this.secretCount = keys.size();
        this.tolerance = b.tolerance;
        this.clock = b.clock;
    }

    /** @return a builder; give at least one secret */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Verifies a request from its headers. Header names are matched case-insensitively; with several values
     * the first counts.
     *
     * @param headers the request's headers, for example {@code HttpExchange.getRequestHeaders()} or Spring's
     *     {@code HttpHeaders}
     * @param body the exact body bytes as received
     * @throws WebhookVerificationException naming the problem when the request must be refused
     */
    public void verify(Map<String, ? extends List<String>> headers, byte[] body) {
        Objects.requireNonNull(headers, "headers");
        verify(
                first(headers, WebhookPublisher.WEBHOOK_ID),
                first(headers, WebhookPublisher.WEBHOOK_TIMESTAMP),
                first(headers, WebhookPublisher.WEBHOOK_SIGNATURE),
                body);
    }

    /**
     * Verifies a request from its three Standard Webhooks header values.
     *
     * @param id the {@code webhook-id} header, or {@code null} when missing
     * @param timestamp the {@code webhook-timestamp} header, or {@code null} when missing
     * @param signature the {@code webhook-signature} header, or {@code null} when missing
     * @param body the exact body bytes as received
     * @throws WebhookVerificationException naming the problem when the request must be refused
     */
    public void verify(String id, String timestamp, String signature, byte[] body) {
        Objects.requireNonNull(body, "body");
        requireHeader(WebhookPublisher.WEBHOOK_ID, id);
        requireHeader(WebhookPublisher.WEBHOOK_TIMESTAMP, timestamp);
        requireHeader(WebhookPublisher.WEBHOOK_SIGNATURE, signature);
        long seconds;
        try {
            seconds = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            throw new WebhookVerificationException(
                    Problem.MALFORMED_TIMESTAMP, "webhook-timestamp '" + shorten(timestamp) + "' is not Unix seconds");
        }
        Instant now = clock.instant();
        long nowSeconds = now.getEpochSecond();
        if (seconds < nowSeconds - tolerance.toSeconds()) {
            throw new WebhookVerificationException(
                    Problem.STALE_TIMESTAMP,
                    "webhook-timestamp " + seconds + " is " + (nowSeconds - seconds) + " s old; the tolerance is "
                            + tolerance.toSeconds() + " s");
        }
        if (seconds > nowSeconds + tolerance.toSeconds()) {
            throw new WebhookVerificationException(
                    Problem.FUTURE_TIMESTAMP,
                    "webhook-timestamp " + seconds + " is " + (seconds - nowSeconds)
                            + " s in the future; the tolerance is " + tolerance.toSeconds() + " s");
        }
        List<byte[]> offered = new ArrayList<>();
        for (String entry : signature.trim().split("\\s+")) {
            int comma = entry.indexOf(',');
            if (comma > 0 && entry.substring(0, comma).equals(Signatures.VERSION)) {
                try {
                    offered.add(Base64.getDecoder().decode(entry.substring(comma + 1)));
                } catch (IllegalArgumentException e) {
                    // A malformed entry matches nothing; another entry may still match.
                }
            }
        }
        if (offered.isEmpty()) {
            throw new WebhookVerificationException(
                    Problem.MALFORMED_SIGNATURE, "webhook-signature holds no v1,<base64> signature");
        }
        String timestampAsSent = timestamp.trim();
        for (byte[] key : keys) {
            byte[] expected = Signatures.hmac(key, id, timestampAsSent, body);
            for (byte[] candidate : offered) {
                if (MessageDigest.isEqual(expected, candidate)) {
                    return;
                }
            }
        }
        throw new WebhookVerificationException(
                Problem.SIGNATURE_MISMATCH,
                "no webhook-signature matches (" + offered.size() + " offered, " + secretCount
                        + " known secret(s)): the body, id or timestamp was changed, or it was signed with a secret"
                        + " this receiver does not know");
    }

    private static void requireHeader(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new WebhookVerificationException(Problem.MISSING_HEADER, "header " + name + " is missing");
        }
    }

    private static String first(Map<String, ? extends List<String>> headers, String name) {
        for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
            if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
                List<String> values = e.getValue();
                return values == null || values.isEmpty() ? null : values.get(0);
            }
        }
        return null;
    }

    private static String shorten(String value) {
        return value.length() <= 32 ? value : value.substring(0, 32) + "...";
    }

    /** Shows the number of secrets, never a secret. */
    @Override
    public String toString() {
        return "WebhookVerifier[" + Signatures.mask(secretCount) + ", tolerance=" + tolerance + "]";
    }

    /** Builds a {@link WebhookVerifier}; everything is checked at {@link #build()}. */
    public static final class Builder {
        private final List<String> secrets = new ArrayList<>();
        private Duration tolerance = Duration.ofMinutes(5);
        private InstantSource clock = InstantSource.system();

        private Builder() {}

        /**
         * @param secret a secret the sender may sign with, in the same form the sender was given it
         *     ({@code whsec_<base64>} or plain text); add several during a rotation
         * @return this builder
         */
        public Builder secret(String secret) {
            secrets.add(secret);
            return this;
        }

        /**
         * @param tolerance how far {@code webhook-timestamp} may lie from this receiver's clock, either way
         *     (default 5 minutes)
         * @return this builder
         */
        public Builder tolerance(Duration tolerance) {
            this.tolerance = tolerance;
            return this;
        }

        /**
         * @param clock the receiver's clock (default the system clock)
         * @return this builder
         */
        public Builder clock(InstantSource clock) {
            this.clock = clock;
            return this;
        }

        /**
         * @return the verifier
         * @throws OutboxValidationException when there is no secret, a secret is rejected, or the tolerance is
         *     not positive
         */
        public WebhookVerifier build() {
            if (secrets.isEmpty()) {
                throw new OutboxValidationException(
                        "WebhookVerifier.secret", null, "WebhookVerifier has no secret: add secret(...)");
            }
            if (tolerance == null || tolerance.isNegative() || tolerance.isZero()) {
                throw new OutboxValidationException(
                        "WebhookVerifier.tolerance",
                        null,
                        "WebhookVerifier.tolerance is " + tolerance + "; give a positive duration");
            }
            if (clock == null) {
                throw new OutboxValidationException("WebhookVerifier.clock", null, "WebhookVerifier.clock is null");
            }
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < secrets.size(); i++) {
                keys.add(Signatures.decodeSecret(secrets.get(i), "WebhookVerifier secret #" + (i + 1)));
            }
            return new WebhookVerifier(this, keys);
        }
    }
}
