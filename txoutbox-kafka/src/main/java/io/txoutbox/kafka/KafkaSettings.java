package io.txoutbox.kafka;

import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;

/**
 * A Kafka publisher's settings, checked: each is declared here once, as a {@link Setting} with its
 * default, its limits and its doc. {@link KafkaPublisher.Builder} and the relay server's {@code transport:
 * {kafka: ...}} YAML bind through these descriptors and are checked by {@link #of}, which names a refused
 * setting as the caller spelled it. Where to connect (the bootstrap servers), the producer properties, a
 * producer of your own, the router and the CloudEvents mapping are not settings here but inputs of the
 * builder; so is the check that the delivery timeout covers the request timeout and {@code linger.ms},
 * which needs the producer properties.
 */
public final class KafkaSettings {
    /** The longest timeout: Kafka reads {@code request.timeout.ms} and {@code delivery.timeout.ms} as ints. */
    private static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    /** What is put before every routed topic. */
    public static final Setting<String> TOPIC_PREFIX = Setting.builder("topicPrefix", String.class)
            .optional()
            .rule(v -> !v.isBlank(), "not be blank (leave it unset for none)", "not blank")
            .doc("Put before every routed topic (prod. sends order events to prod.order); an event's own"
                    + " destination is used as it is.")
            .build();

    /** How long the producer waits for one answer of the broker, {@code request.timeout.ms}. */
    public static final Setting<Duration> REQUEST_TIMEOUT = Setting.builder("requestTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .positiveUpTo(MAX_TIMEOUT)
            .doc("How long the producer waits for one answer of the broker (request.timeout.ms; set it here"
                    + " or in the producer properties, not both).")
            .build();

    /** How long a record may take in all, {@code delivery.timeout.ms}. */
    public static final Setting<Duration> DELIVERY_TIMEOUT = Setting.builder("deliveryTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(8))
            .positiveUpTo(MAX_TIMEOUT)
            .doc("How long a record may take in all, retries included, before its event is retried"
                    + " (delivery.timeout.ms, and max.block.ms unless set); at least the request timeout plus"
                    + " linger.ms. Keep it below the relay's publish timeout.")
            .build();

    /** The settings of a Kafka publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(TOPIC_PREFIX, REQUEST_TIMEOUT, DELIVERY_TIMEOUT);

    /** The Java spelling, as the builder's other refusals name its fields: {@code KafkaPublisher.topicPrefix}. */
    static final Spelling JAVA = Spelling.java("KafkaPublisher");

    private final SettingValues given;
    private final Spelling spelling;
    private final String topicPrefix;
    private final Duration requestTimeout;
    private final Duration deliveryTimeout;

    private KafkaSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.topicPrefix = v.checked(TOPIC_PREFIX, spelling);
        this.requestTimeout = v.checked(REQUEST_TIMEOUT, spelling);
        this.deliveryTimeout = v.checked(DELIVERY_TIMEOUT, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static KafkaSettings of(SettingValues values, Spelling spelling) {
        return new KafkaSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return whether {@code setting} was given, rather than left to the producer properties or its default */
    boolean isGiven(Setting<?> setting) {
        return given.isSet(setting);
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return what is put before every routed topic; {@code null} for none */
    public String topicPrefix() {
        return topicPrefix;
    }

    /**
     * @return how long the producer waits for one answer of the broker; the default when not given, even if
     *     the producer properties set {@code request.timeout.ms} (the publisher's producer takes that)
     */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /**
     * @return how long a record may take in all; the default when not given, even if the producer properties
     *     set {@code delivery.timeout.ms} (the publisher's producer takes that)
     */
    public Duration deliveryTimeout() {
        return deliveryTimeout;
    }
}
