package io.txoutbox.server.yaml;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.Redaction;

/**
 * The configuration is wrong: an unknown key, a value of the wrong type or out of range, a missing
 * table, a bad URL. The message starts with the key ({@code sources[0].jdbc-url: ...}); the CLI prints
 * it and exits with status 2. The message passes through {@link Redaction}: it often quotes what a
 * driver or a client said about a URL.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String problem;

    /**
     * @param key the key at fault, as the file spells it ({@code sources[0].relay.batch-size})
     * @param problem what is wrong with it, without the key
     */
    public ConfigException(String key, String problem) {
        this(key, problem, null);
    }

    /**
     * @param key the key at fault, as the file spells it
     * @param problem what is wrong with it, without the key
     * @param cause the refusal underneath (a builder's, a driver's), or {@code null}
     */
    public ConfigException(String key, String problem, Throwable cause) {
        super(Redaction.redact(key + ": " + problem), cause);
        this.key = key;
        this.problem = Redaction.redact(problem);
    }

    /**
     * @param e a library rule's refusal of a setting that a binder named by its key ({@link
     *     io.txoutbox.settings.Spelling#keys(String)}), so that its field is the key
     * @return the refusal under that key, the key not repeated at the start of the problem
     */
    public static ConfigException refused(OutboxValidationException e) {
        String key = e.field();
        String text = e.getMessage();
        return new ConfigException(key, text.startsWith(key + " ") ? text.substring(key.length() + 1) : text, e);
    }

    /** @return the configuration key at fault, e.g. {@code sources[0].relay.batch-size} */
    public String key() {
        return key;
    }

    /** @return what is wrong with the {@link #key()}, without it, redacted as the message is */
    public String problem() {
        return problem;
    }
}
