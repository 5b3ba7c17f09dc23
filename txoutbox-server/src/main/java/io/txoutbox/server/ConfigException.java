package io.txoutbox.server;

/**
 * The configuration is wrong: an unknown key, a value of the wrong type or out of range, a missing
 * table, a bad URL. The message starts with the key ({@code sources[0].jdbc-url: ...}); the CLI prints
 * it and exits with status 2.
 */
final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    ConfigException(String key, String problem) {
        super(key + ": " + problem);
        this.key = key;
    }

    ConfigException(String key, String problem, Throwable cause) {
        super(key + ": " + problem, cause);
        this.key = key;
    }

    /** @return the configuration key at fault, e.g. {@code sources[0].relay.batch-size} */
    String key() {
        return key;
    }
}
