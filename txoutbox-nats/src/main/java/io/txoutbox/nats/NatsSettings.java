package io.txoutbox.nats;

import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;

/**
 * A NATS publisher's settings, checked: each is declared here once, as a {@link Setting} with its
 * default, its limits and its doc. {@link NatsPublisher.Builder} and the relay server's {@code transport:
 * {nats: ...}} YAML bind through these descriptors and are checked by {@link #of}, which names a refused
 * setting as the caller spelled it. Where the publisher connects (a server URL, client {@code Options} or
 * a {@code Connection}), the JetStream options and the router are not settings but objects of their own.
 */
public final class NatsSettings {
    /** Put before the router's subject. */
    public static final Setting<String> SUBJECT_PREFIX = Setting.builder("subjectPrefix", String.class)
            .defaultValue("")
            .defaultText("none")
            .rule(
                    NatsSettings::startsASubject,
                    "start a subject NATS can publish to: no whitespace or control character, no empty token, no"
                            + " wildcard token",
                    "no whitespace, empty token or wildcard")
            .doc("Put before the router's subject (events. sends order events to events.order); an event's own"
                    + " destination is used as it is.")
            .build();

    /** How long a batch waits for its PubAcks. */
    public static final Setting<Duration> PUBLISH_TIMEOUT = Setting.builder("publishTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .positiveUpTo(Settings.MAX_TIMEOUT)
            .doc("How long a batch waits for its PubAcks, then every unacknowledged event is a retry (also the"
                    + " connect timeout); keep it below the relay's publish timeout.")
            .build();

    /** The client name the NATS server shows. */
    public static final Setting<String> CONNECTION_NAME = Setting.builder("connectionName", String.class)
            .defaultValue("txoutbox")
            .rule(name -> !name.isBlank(), "not be blank", "not blank")
            .doc("The client name the NATS server shows for the connection the publisher opens (in Java with"
                    + " server(...); options and a connection carry their own).")
            .build();

    /** The settings of a NATS publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(SUBJECT_PREFIX, PUBLISH_TIMEOUT, CONNECTION_NAME);

    /** The Java spelling, the builder's: {@code NatsPublisher.Builder.publishTimeout}. */
    static final Spelling JAVA = Spelling.java("NatsPublisher.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final String subjectPrefix;
    private final Duration publishTimeout;
    private final String connectionName;

    private NatsSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.subjectPrefix = v.checked(SUBJECT_PREFIX, spelling);
        this.publishTimeout = v.checked(PUBLISH_TIMEOUT, spelling);
        this.connectionName = v.checked(CONNECTION_NAME, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal (and for the reason of a retry that
     *     names {@link #PUBLISH_TIMEOUT})
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static NatsSettings of(SettingValues values, Spelling spelling) {
        return new NatsSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return what is put before the router's subject, empty for nothing */
    public String subjectPrefix() {
        return subjectPrefix;
    }

    /** @return how long a batch waits for its PubAcks */
    public Duration publishTimeout() {
        return publishTimeout;
    }

    /** @return the client name the NATS server shows */
    public String connectionName() {
        return connectionName;
    }

    /** Whether a subject NATS can publish to is made of the prefix and a router's subject after it. */
    private static boolean startsASubject(String prefix) {
        return prefix.isEmpty() || Subjects.problem(prefix + "x") == null;
    }
}
