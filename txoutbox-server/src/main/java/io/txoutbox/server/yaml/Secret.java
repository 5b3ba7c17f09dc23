package io.txoutbox.server.yaml;

import io.txoutbox.Redaction;
import java.util.Objects;

/**
 * A password, token or signing secret from the configuration. {@link #toString()} masks it, and making
 * one registers it with {@link Redaction}, so that a secret can never reach a log line, an exception
 * message or an API response by accident, not even quoted by a driver or a client library.
 *
 * @param value the secret itself; read it only where it is used
 */
public record Secret(String value) {
    public Secret {
        Objects.requireNonNull(value, "value");
        Redaction.register(value);
    }

    @Override
    public String toString() {
        return "****";
    }
}
