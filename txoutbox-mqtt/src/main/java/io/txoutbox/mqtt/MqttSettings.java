package io.txoutbox.mqtt;

import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * An MQTT publisher's settings, checked: each is declared here once, as a {@link Setting} with its default,
 * its limits and its doc. {@link MqttPublisher.Builder} and the relay server's {@code transport: {mqtt:
 * ...}} YAML bind through these descriptors and are checked by {@link #of}, which names a refused setting
 * as the caller spelled it. Where to connect (the server URI), the credentials, the router and the
 * CloudEvents mapping are not settings here but inputs of the builder.
 */
public final class MqttSettings {

    /** The MQTT client id; unset, the builder makes one up. */
    public static final Setting<String> CLIENT_ID = Setting.builder("clientId", String.class)
            .optional()
            .defaultText("txoutbox + 12 random hex digits")
            .rule(
                    v -> !v.isEmpty() && v.getBytes(StandardCharsets.UTF_8).length <= 65_535,
                    "be 1 to 65,535 bytes in UTF-8",
                    "1..65535 bytes")
            .doc("The MQTT client id. Two connections with one id push each other off the broker: give each"
                    + " publisher its own.")
            .build();

    /** What is put before every topic the router gives. */
    public static final Setting<String> TOPIC_PREFIX = Setting.builder("topicPrefix", String.class)
            .defaultValue("")
            .defaultText("none")
            .rule(
                    v -> v.indexOf('+') < 0 && v.indexOf('#') < 0 && v.indexOf('\0') < 0,
                    "not contain the wildcards '+' or '#' or a NUL character",
                    "no '+', '#' or NUL")
            .doc("Put before every topic the router gives (outbox/ sends order events to outbox/order); an"
                    + " event's own destination is used as it is.")
            .build();

    /** The QoS of every publish: 1 or 2. */
    public static final Setting<Integer> QOS = Setting.builder("qos", Integer.class)
            .defaultValue(1)
            .rule(
                    v -> v == 1 || v == 2,
                    "be 1 or 2 (QoS 0 is never acknowledged, so no publish could be confirmed)",
                    "1..2")
            .doc("1 (PUBACK confirms the broker has the message) or 2 (the broker's exactly-once handshake,"
                    + " confirmed by PUBCOMP: slower, and it does not stop the outbox's own re-publishes). 0 is"
                    + " refused: nothing would confirm delivery.")
            .build();

    /** How long a batch waits for its acknowledgements, connecting included. */
    public static final Setting<Duration> COMPLETION_TIMEOUT = Setting.builder("completionTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .rule(d -> !d.isNegative() && !d.isZero(), "be positive", "> 0")
            .doc("How long a batch waits for its acknowledgements, connecting included; then the"
                    + " unacknowledged events are retries. Keep it below the relay's publish timeout.")
            .build();

    /** The MQTT keep-alive interval, in whole seconds. */
    public static final Setting<Duration> KEEP_ALIVE = Setting.builder("keepAlive", Duration.class)
            .defaultValue(Duration.ofSeconds(30))
            .rule(d -> d.getSeconds() >= 1 && d.getSeconds() <= 65_535, "be 1 to 65,535 seconds", "1..65535 s")
            .doc("The MQTT keep-alive interval, in whole seconds (a fraction is dropped): how soon a silently"
                    + " dead connection is noticed and replaced.")
            .build();

    /** How a message carries an event. */
    public static final Setting<MqttPublisher.Format> FORMAT = Setting.builder("format", MqttPublisher.Format.class)
            .defaultValue(MqttPublisher.Format.ENVELOPE)
            .doc("ENVELOPE: one JSON object with the headers and the payload's exact bytes; RAW: the payload"
                    + " alone, with no headers (not even event-id).")
            .build();

    /** The most messages unacknowledged at once, across every batch. */
    public static final Setting<Integer> MAX_INFLIGHT = Setting.builder("maxInflight", Integer.class)
            .defaultValue(1_000)
            .between(1, 65_535)
            .doc("The most messages unacknowledged at once, across every batch and relay sharing the"
                    + " publisher; a larger batch goes out as acknowledgements come back.")
            .build();

    /** The settings of an MQTT publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS =
            List.of(CLIENT_ID, TOPIC_PREFIX, QOS, COMPLETION_TIMEOUT, KEEP_ALIVE, FORMAT, MAX_INFLIGHT);

    /** The Java spelling, as the builder's other refusals name its fields: {@code MqttPublisher.Builder.qos}. */
    static final Spelling JAVA = Spelling.java("MqttPublisher.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final String clientId;
    private final String topicPrefix;
    private final int qos;
    private final Duration completionTimeout;
    private final Duration keepAlive;
    private final MqttPublisher.Format format;
    private final int maxInflight;

    private MqttSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.clientId = v.checked(CLIENT_ID, spelling);
        this.topicPrefix = v.checked(TOPIC_PREFIX, spelling);
        this.qos = v.checked(QOS, spelling);
        this.completionTimeout = v.checked(COMPLETION_TIMEOUT, spelling);
        this.keepAlive = v.checked(KEEP_ALIVE, spelling);
        this.format = v.checked(FORMAT, spelling);
        this.maxInflight = v.checked(MAX_INFLIGHT, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static MqttSettings of(SettingValues values, Spelling spelling) {
        return new MqttSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return the MQTT client id, or {@code null} when unset (the builder then makes one up) */
    public String clientId() {
        return clientId;
    }

    /** @return what is put before every routed topic; {@code ""} for none */
    public String topicPrefix() {
        return topicPrefix;
    }

    /** @return the QoS of every publish, 1 or 2 */
    public int qos() {
        return qos;
    }

    /** @return how long a batch waits for its acknowledgements, connecting included */
    public Duration completionTimeout() {
        return completionTimeout;
    }

    /** @return the MQTT keep-alive interval; its whole seconds are used */
    public Duration keepAlive() {
        return keepAlive;
    }

    /** @return how a message carries an event */
    public MqttPublisher.Format format() {
        return format;
    }

    /** @return the most messages unacknowledged at once */
    public int maxInflight() {
        return maxInflight;
    }
}
