package io.txoutbox.jms;

import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import java.util.List;

/**
 * A JMS publisher's settings, checked: each is declared here once, as a {@link Setting} with its default,
 * its limits and its doc. {@link JmsPublisher.Builder} and the relay server's {@code transport: {jms:
 * ...}} YAML bind through these descriptors and are checked by {@link #of}, which names a refused setting
 * as the caller spelled it. The provider's {@code ConnectionFactory} (where to connect), the credentials
 * and the router are not settings here but inputs of the builder, and so is the check that {@code
 * asyncSend} suits the factory, which {@link JmsPublisher.Builder#build()} makes.
 */
public final class JmsSettings {

    /** What a bare route names. */
    public static final Setting<JmsPublisher.DestinationType> DESTINATION_TYPE = Setting.builder(
                    "destinationType", JmsPublisher.DestinationType.class)
            .defaultValue(JmsPublisher.DestinationType.QUEUE)
            .doc("What a bare route names: a queue or a topic; a route queue://name or topic://name says it"
                    + " itself.")
            .build();

    /** How many lanes send in parallel. */
    public static final Setting<Integer> SESSIONS = Setting.builder("sessions", Integer.class)
            .defaultValue(4)
            .between(1, 64)
            .doc("How many lanes send in parallel, each a thread with its own session and producer; the events"
                    + " of one aggregate go out on one lane.")
            .build();

    /** Whether a lane sends with completion listeners. */
    public static final Setting<Boolean> ASYNC_SEND = Setting.builder("asyncSend", Boolean.class)
            .defaultValue(false)
            .doc("Send with completion listeners and wait for the completions instead of synchronously; refused"
                    + " for an ActiveMQ Artemis factory without a positive confirmationWindowSize (its completion"
                    + " would come before the broker has the message).")
            .build();

    /** How long a batch waits for its confirmations. */
    public static final Setting<Duration> PUBLISH_TIMEOUT = Setting.builder("publishTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .positiveUpTo(Settings.MAX_TIMEOUT)
            .doc("How long a batch waits for its confirmations, and build() for the first connection; then every"
                    + " unconfirmed event is a retry. Keep it below the relay's publish timeout.")
            .build();

    /** The settings of a JMS publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(DESTINATION_TYPE, SESSIONS, ASYNC_SEND, PUBLISH_TIMEOUT);

    /** The Java spelling, as the builder's other refusals name its fields: {@code JmsPublisher.Builder.sessions}. */
    static final Spelling JAVA = Spelling.java("JmsPublisher.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final JmsPublisher.DestinationType destinationType;
    private final int sessions;
    private final boolean asyncSend;
    private final Duration publishTimeout;

    private JmsSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.destinationType = v.checked(DESTINATION_TYPE, spelling);
        this.sessions = v.checked(SESSIONS, spelling);
        this.asyncSend = v.checked(ASYNC_SEND, spelling);
        this.publishTimeout = v.checked(PUBLISH_TIMEOUT, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static JmsSettings of(SettingValues values, Spelling spelling) {
        return new JmsSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return what a bare route names */
    public JmsPublisher.DestinationType destinationType() {
        return destinationType;
    }

    /** @return how many lanes send in parallel, 1 to 64 */
    public int sessions() {
        return sessions;
    }

    /** @return whether a lane sends with completion listeners */
    public boolean asyncSend() {
        return asyncSend;
    }

    /** @return how long a batch waits for its confirmations */
    public Duration publishTimeout() {
        return publishTimeout;
    }
}
