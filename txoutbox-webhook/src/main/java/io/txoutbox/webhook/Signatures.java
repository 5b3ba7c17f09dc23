package io.txoutbox.webhook;

import io.txoutbox.OutboxValidationException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Standard Webhooks signing scheme: {@code v1,<base64(HMAC-SHA256(key, id + "." + timestamp + "." +
 * body))>}, one entry per secret, separated by spaces.
 */
final class Signatures {
    /** The Standard Webhooks prefix of a base64-encoded secret. */
    static final String SECRET_PREFIX = "whsec_";
    /** The version tag of an HMAC-SHA256 signature. */
    static final String VERSION = "v1";
    /** Shorter keys make HMAC-SHA256 guessable; Standard Webhooks recommends 24 to 64 bytes. */
    static final int MIN_SECRET_BYTES = 16;

    private static final String HMAC = "HmacSHA256";

    private Signatures() {}

    /**
     * @param secret {@code whsec_<base64>} (decoded) or any other text (its UTF-8 bytes are the key)
     * @param setting the setting to name in an error, for example {@code WebhookEndpoint.secret #2}
     * @return the key bytes
     * @throws OutboxValidationException when the secret is blank, not valid base64 after {@code whsec_}, or
     *     shorter than 16 bytes; the message never contains the secret
     */
    static byte[] decodeSecret(String secret, String setting) {
        if (secret == null || secret.isBlank()) {
            throw new OutboxValidationException(setting, null, setting + " is blank; give a secret");
        }
        byte[] key;
        if (secret.startsWith(SECRET_PREFIX)) {
            try {
                key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
            } catch (IllegalArgumentException e) {
                throw new OutboxValidationException(
                        setting,
                        null,
                        setting + " starts with '" + SECRET_PREFIX + "' but the rest is not valid base64 ("
                                + e.getMessage() + ")");
            }
        } else {
            key = secret.getBytes(StandardCharsets.UTF_8);
        }
        if (key.length < MIN_SECRET_BYTES) {
            throw new OutboxValidationException(
                    setting,
                    MIN_SECRET_BYTES + " bytes",
                    setting + " is " + key.length + " bytes; the minimum is " + MIN_SECRET_BYTES
                            + " bytes (Standard Webhooks recommends 24 to 64)");
        }
        return key;
    }

    /**
     * @param key the decoded secret
     * @param id the {@code webhook-id}
     * @param timestamp the {@code webhook-timestamp}, Unix seconds as sent
     * @param body the exact body bytes
     * @return the raw HMAC-SHA256 of {@code id.timestamp.body}
     */
    static byte[] hmac(byte[] key, String id, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            // Every Java SE runtime must provide HmacSHA256: this cannot happen on a conforming JDK.
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }

    /**
     * @return the {@code webhook-signature} value: {@code v1,<base64>} per key, separated by spaces
     */
    static String header(List<byte[]> keys, String id, String timestamp, byte[] body) {
        List<String> parts = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            parts.add(VERSION + "," + Base64.getEncoder().encodeToString(hmac(key, id, timestamp, body)));
        }
        return String.join(" ", parts);
    }

    /** @return how a secret appears in {@code toString()} and logs: never any of its characters */
    static String mask(int count) {
        return count + (count == 1 ? " secret" : " secrets") + " (****)";
    }
}
