package io.txoutbox.server;

import java.util.Objects;

/**
 * A password, token or signing secret from the configuration. {@link #toString()} masks it, so a
 * secret can never reach a log line, an exception message or an API response by accident.
 *
 * @param value the secret itself; read it only where it is used
 */
record Secret(String value) {
    Secret {
        Objects.requireNonNull(value, "value");
    }

    @Override
    public String toString() {
        return "****";
    }
}
