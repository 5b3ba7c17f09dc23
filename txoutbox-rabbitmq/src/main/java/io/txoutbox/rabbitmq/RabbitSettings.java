package io.txoutbox.rabbitmq;

import io.txoutbox.internal.transport.Settings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A RabbitMQ publisher's settings, checked: each is declared here once, as a {@link Setting} with its
 * default, its limits and its doc. {@link RabbitPublisher.Builder} and the relay server's {@code
 * transport: {rabbitmq: ...}} YAML bind through these descriptors and are checked by {@link #of}, which
 * names a refused setting as the caller spelled it. Where to connect (a {@code ConnectionFactory}, or the
 * host, port, virtual host and credentials), the router and the CloudEvents mapping are not settings here
 * but inputs of the builder.
 */
public final class RabbitSettings {

    /** The exchange every event goes to. */
    public static final Setting<String> EXCHANGE = Setting.builder("exchange", String.class)
            .defaultValue("")
            .defaultText("\"\" (the default exchange)")
            .rule(
                    v -> v.getBytes(StandardCharsets.UTF_8).length <= Messages.MAX_SHORT_STRING_BYTES,
                    "be at most " + Messages.MAX_SHORT_STRING_BYTES + " bytes in UTF-8 (an AMQP short string)",
                    "<= " + Messages.MAX_SHORT_STRING_BYTES + " bytes")
            .doc("The one exchange every event goes to; it must exist (the publisher declares nothing). The"
                    + " default exchange routes a message to the queue its routing key names.")
            .build();

    /** How long a batch waits for its publisher confirms. */
    public static final Setting<Duration> CONFIRM_TIMEOUT = Setting.builder("confirmTimeout", Duration.class)
            .defaultValue(Duration.ofSeconds(5))
            .positiveUpTo(Settings.MAX_TIMEOUT)
            .doc("How long a batch waits for its publisher confirms; then every unconfirmed event is a retry."
                    + " Keep it below the relay's publish timeout.")
            .build();

    /** The connection's name in RabbitMQ's management UI. */
    public static final Setting<String> CONNECTION_NAME = Setting.builder("connectionName", String.class)
            .defaultValue("txoutbox")
            .rule(v -> !v.isBlank(), "not be blank", "not blank")
            .doc("The connection's name, shown in RabbitMQ's management UI.")
            .build();

    /** The settings of a RabbitMQ publisher, in the order the docs show them. */
    public static final List<Setting<?>> SETTINGS = List.of(EXCHANGE, CONFIRM_TIMEOUT, CONNECTION_NAME);

    /** The Java spelling, as the builder's other refusals name its fields: {@code RabbitPublisher.Builder.exchange}. */
    static final Spelling JAVA = Spelling.java("RabbitPublisher.Builder");

    private final SettingValues given;
    private final Spelling spelling;
    private final String exchange;
    private final Duration confirmTimeout;
    private final String connectionName;

    private RabbitSettings(SettingValues v, Spelling spelling) {
        this.given = v.copy();
        this.spelling = spelling;
        this.exchange = v.checked(EXCHANGE, spelling);
        this.confirmTimeout = v.checked(CONFIRM_TIMEOUT, spelling);
        this.connectionName = v.checked(CONNECTION_NAME, spelling);
    }

    /**
     * @param values the settings given; the rest take their defaults
     * @param spelling how the caller spells the settings, for a refusal
     * @return the settings, checked
     * @throws io.txoutbox.OutboxValidationException naming, in {@code spelling}, a setting that is out of
     *     bounds
     */
    public static RabbitSettings of(SettingValues values, Spelling spelling) {
        return new RabbitSettings(values, spelling);
    }

    /** @return the values as given */
    SettingValues given() {
        return given.copy();
    }

    /** @return how the values were spelled where they were given */
    Spelling spelling() {
        return spelling;
    }

    /** @return the exchange every event goes to; {@code ""} is the default exchange */
    public String exchange() {
        return exchange;
    }

    /** @return how long a batch waits for its confirms */
    public Duration confirmTimeout() {
        return confirmTimeout;
    }

    /** @return the connection's name in the management UI */
    public String connectionName() {
        return connectionName;
    }
}
