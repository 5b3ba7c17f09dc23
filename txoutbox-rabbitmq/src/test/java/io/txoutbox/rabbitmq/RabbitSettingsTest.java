package io.txoutbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The publisher's settings are checked once, by {@link RabbitSettings}: a refusal names the setting as it
 * was given (in Java from the builder, by its key from a front end), unset settings take their defaults,
 * and the builder takes no descriptor that is not one of them.
 */
class RabbitSettingsTest {
    private static final Spelling YAML = Spelling.keys("sources[0].routes[0].transport.rabbitmq");

    @Test
    void unset_settings_take_their_defaults() {
        RabbitSettings defaults = RabbitSettings.of(new SettingValues(), RabbitSettings.JAVA);
        assertThat(defaults.exchange()).isEmpty();
        assertThat(defaults.confirmTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.connectionName()).isEqualTo("txoutbox");
        assertThat(RabbitSettings.SETTINGS)
                .extracting(Setting::key)
                .containsExactly("exchange", "confirm-timeout", "connection-name");
    }

    @Test
    void a_refusal_from_the_builder_names_the_setting_in_java() {
        assertThatThrownBy(() -> RabbitPublisher.builder()
                        .confirmTimeout(Duration.ofMinutes(11))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("RabbitPublisher.Builder.confirmTimeout is 11m; it must be at most 10m")
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("RabbitPublisher.Builder.confirmTimeout"));
        assertThatThrownBy(() -> RabbitPublisher.builder().connectionName(" ").build())
                .hasMessage("RabbitPublisher.Builder.connectionName is ' '; it must not be blank");
        // 128 two-byte characters: 256 bytes, one more than an AMQP short string holds.
        assertThatThrownBy(() ->
                        RabbitPublisher.builder().exchange("é".repeat(128)).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("RabbitPublisher.Builder.exchange is 'éééé")
                .hasMessageEndingWith("(128 characters); it must be at most 255 bytes in UTF-8 (an AMQP short string)");
    }

    @Test
    void a_refusal_through_of_names_the_setting_by_its_key() {
        SettingValues v = new SettingValues().set(RabbitSettings.CONFIRM_TIMEOUT, Duration.ZERO);
        assertThatThrownBy(() -> RabbitSettings.of(v, YAML))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("sources[0].routes[0].transport.rabbitmq.confirm-timeout is 0s; it must be positive")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("> 0"));
    }

    @Test
    void settings_given_by_a_front_end_keep_its_spelling_and_a_java_customization_is_named_in_java() {
        RabbitSettings checked =
                RabbitSettings.of(new SettingValues().set(RabbitSettings.CONNECTION_NAME, "orders-relay"), YAML);
        // A value that passed the front end's check and is then overridden in Java is named in Java.
        assertThatThrownBy(() -> RabbitPublisher.builder()
                        .settings(checked)
                        .confirmTimeout(Duration.ZERO)
                        .build())
                .hasMessage("RabbitPublisher.Builder.confirmTimeout is 0s; it must be positive");
    }

    @Test
    void the_checked_settings_reach_the_publisher() {
        try (RabbitPublisher publisher = RabbitPublisher.builder()
                .host(LocalRabbit.HOST)
                .port(LocalRabbit.PORT)
                .settings(RabbitSettings.of(
                        new SettingValues()
                                .set(RabbitSettings.EXCHANGE, "amq.direct")
                                .set(RabbitSettings.CONFIRM_TIMEOUT, Duration.ofMillis(250)),
                        YAML))
                .build()) {
            assertThat(publisher.toString()).contains("exchange=amq.direct", "confirmTimeout=250 ms");
        }
    }

    @Test
    void set_refuses_a_descriptor_that_is_not_a_rabbitmq_setting() {
        Setting<String> foreign = Setting.builder("exchange", String.class)
                .defaultValue("")
                .doc("Another transport's exchange, of the same name.")
                .build();
        assertThatThrownBy(() -> RabbitPublisher.builder().set(foreign, "events"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'exchange' is not a setting of a RabbitMQ publisher");
        assertThat(RabbitPublisher.builder()
                        .set(RabbitSettings.EXCHANGE, "events")
                        .toString())
                .endsWith("exchange=events]");
    }
}
