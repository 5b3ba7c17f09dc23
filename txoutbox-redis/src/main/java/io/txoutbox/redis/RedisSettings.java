package io.txoutbox.redis;

import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;

/**
 * A Redis Streams publisher's settings, checked: each is declared here once, as a {@link Setting} with its
 * default, its limits and its doc. {@link RedisStreamsPublisher.Builder} and the relay server's {@code
 * transport: {redis: ...}} YAML bind through these descriptors and are checked by {@link #of}, which names
 * a refused setting as the caller spelled it. Where Redis is (a URI, a client, a connection) and the
 * router are not settings of this kind but inputs of the builder of their own.
 */
public final class RedisSettings {
    /** The largest {@code maxLen}: beyond it, trimming is pointless. */
    private static final long MAX_MAXLEN = 1L << 40;

    /** What is put before every stream key the router gives; the server calls it {@code stream-prefix}. */
    public static final Setting<String> KEY_PREFIX = Setting.builder("keyPrefix", String.class)
            .key("stream-prefix")
            .defaultValue("")
            .defaultText("none")
            .doc("Put before every stream key the router gives (outbox: sends order events to outbox:order);"
                    + " an event's own destination is used as it is.")
            .build();

    /** The approximate length each stream is trimmed to, {@code XADD MAXLEN ~ n}; 0 trims nothing. */
    public static final Setting<Long> MAX_LEN = Setting.builder("maxLen", Long.class)
            .defaultValue(0L)
            .defaultText("0 (no trimming)")
            .between(0, MAX_MAXLEN)
            .doc("Trim each stream as it grows with XADD MAXLEN ~ n: Redis keeps at least n entries, removes"
                    + " old ones in whole nodes, read by a consumer or not; 0 trims nothing.")
            .build();

    /** How long a batch waits for its replies, and for the connection. */
    public static final Setting<Duration> COMMAND_TIMEOUT = Setting.builder("commandTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .rule(d -> !d.isNegative() && !d.isZero(), "be positive", "> 0")
            .doc("How long a batch waits for its replies (and for the connection); then unanswered events are"
                    + " retried. Keep it below the relay's publish timeout.")
            .build();

    /** The settings of a Redis Streams publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(KEY_PREFIX, MAX_LEN, COMMAND_TIMEOUT);

    /** The Java spelling, as the builder's refusals always named them: {@code RedisStreamsPublisher.Builder.maxLen}. */
    static final Spelling JAVA = Spelling.java("RedisStreamsPublisher.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final String keyPrefix;
    private final long maxLen;
    private final Duration commandTimeout;

    private RedisSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.keyPrefix = v.checked(KEY_PREFIX, spelling);
        this.maxLen = v.checked(MAX_LEN, spelling);
        this.commandTimeout = v.checked(COMMAND_TIMEOUT, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static RedisSettings of(SettingValues values, Spelling spelling) {
        return new RedisSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return what is put before every routed stream key, {@code ""} for nothing */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** @return the approximate length each stream is trimmed to, 0 for no trimming */
    public long maxLen() {
        return maxLen;
    }

    /** @return how long a batch waits for its replies and for the connection */
    public Duration commandTimeout() {
        return commandTimeout;
    }
}
