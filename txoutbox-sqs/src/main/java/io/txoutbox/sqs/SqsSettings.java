package io.txoutbox.sqs;

import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;

/**
 * An SQS publisher's settings, checked: each is declared here once, as a {@link Setting} with its default,
 * its limits and its doc. {@link SqsPublisher.Builder} and the relay server's {@code transport: {sqs: ...}}
 * YAML bind through these descriptors and are checked by {@link #of}, which names a refused setting as the
 * caller spelled it. Where to connect (a client, or the region, the endpoint and the credentials) and the
 * router are not settings here but inputs of the builder.
 */
public final class SqsSettings {

    /** What is put before the router's queue name. */
    public static final Setting<String> QUEUE_PREFIX = Setting.builder("queuePrefix", String.class)
            .defaultValue("")
            .defaultText("none")
            .rule(
                    v -> v.isEmpty() || QueueNames.problem(v + "q") == null,
                    "start a queue name (letters, digits, '-' and '_', at most " + (QueueNames.MAX_NAME_LENGTH - 1)
                            + " characters)",
                    "a queue name's start")
            .doc("Put before the router's queue name (not before a queue URL the router gives, nor before an"
                    + " event's own destination), for example prod-.")
            .build();

    /** How long a batch waits for SQS's answers. */
    public static final Setting<Duration> PUBLISH_TIMEOUT = Setting.builder("publishTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .positiveUpTo(Settings.MAX_TIMEOUT)
            .doc("How long a batch waits for SQS's answers, the SDK's retries included (also the client's API call"
                    + " timeout); then every unanswered event is a retry. Keep it below the relay's publish timeout.")
            .build();

    /** The largest message and request, checked before sending. */
    public static final Setting<Integer> MAX_MESSAGE_BYTES = Setting.builder("maxMessageBytes", Integer.class)
            .defaultValue(SqsPublisher.DEFAULT_MAX_MESSAGE_BYTES)
            .defaultText(SqsPublisher.DEFAULT_MAX_MESSAGE_BYTES + " (256 KiB)")
            .between(1_024, SqsPublisher.MAX_MESSAGE_BYTES)
            .doc("The largest message (body and attributes, as SQS counts them) and the largest request, checked"
                    + " before sending; up to 1048576 for a queue whose MaximumMessageSize allows 1 MiB.")
            .build();

    /** The most requests in flight at once. */
    public static final Setting<Integer> MAX_CONCURRENCY = Setting.builder("maxConcurrency", Integer.class)
            .defaultValue(50)
            .between(1, 1_000)
            .doc("The most requests in flight at once, over all queues (the connections of the client the"
                    + " publisher creates).")
            .build();

    /** The settings of an SQS publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS =
            List.of(QUEUE_PREFIX, PUBLISH_TIMEOUT, MAX_MESSAGE_BYTES, MAX_CONCURRENCY);

    /** The Java spelling, as the builder's other refusals name its fields: {@code SqsPublisher.Builder.queuePrefix}. */
    static final Spelling JAVA = Spelling.java("SqsPublisher.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final String queuePrefix;
    private final Duration publishTimeout;
    private final int maxMessageBytes;
    private final int maxConcurrency;

    private SqsSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.queuePrefix = v.checked(QUEUE_PREFIX, spelling);
        this.publishTimeout = v.checked(PUBLISH_TIMEOUT, spelling);
        this.maxMessageBytes = v.checked(MAX_MESSAGE_BYTES, spelling);
        this.maxConcurrency = v.checked(MAX_CONCURRENCY, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static SqsSettings of(SettingValues values, Spelling spelling) {
        return new SqsSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return what is put before the router's queue name; {@code ""} for none */
    public String queuePrefix() {
        return queuePrefix;
    }

    /** @return how long a batch waits for SQS's answers */
    public Duration publishTimeout() {
        return publishTimeout;
    }

    /** @return the largest message and request, in bytes */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /** @return the most requests in flight at once */
    public int maxConcurrency() {
        return maxConcurrency;
    }
}
