package io.txoutbox.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The publisher's settings are checked once, by {@link JmsSettings}: a refusal names the setting as it
 * was given (in Java from the builder, by its key from a front end), unset settings take their defaults,
 * and the builder takes no descriptor that is not one of them. The checked values reach a publisher on
 * the module's embedded ActiveMQ Artemis broker.
 */
class JmsSettingsTest {
    private static final Spelling YAML = Spelling.keys("sources[0].routes[0].transport.jms");

    @Test
    void unset_settings_take_their_defaults() {
        JmsSettings defaults = JmsSettings.of(new SettingValues(), JmsSettings.JAVA);
        assertThat(defaults.destinationType()).isEqualTo(JmsPublisher.DestinationType.QUEUE);
        assertThat(defaults.sessions()).isEqualTo(4);
        assertThat(defaults.asyncSend()).isFalse();
        assertThat(defaults.publishTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(JmsSettings.SETTINGS)
                .extracting(Setting::key)
                .containsExactly("destination-type", "sessions", "async-send", "publish-timeout");
    }

    @Test
    void a_refusal_from_the_builder_names_the_setting_in_java() {
        assertThatThrownBy(() -> direct().sessions(65).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("JmsPublisher.Builder.sessions is 65; it must be between 1 and 64")
                .satisfies(e ->
                        assertThat(((OutboxValidationException) e).field()).isEqualTo("JmsPublisher.Builder.sessions"));
        assertThatThrownBy(() -> direct().publishTimeout(Duration.ofMinutes(11)).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("JmsPublisher.Builder.publishTimeout is 11m; it must be at most 10m");
        assertThatThrownBy(() -> direct().publishTimeout(Duration.ZERO).build())
                .hasMessage("JmsPublisher.Builder.publishTimeout is 0s; it must be positive");
    }

    @Test
    void a_refusal_through_of_names_the_setting_by_its_key() {
        SettingValues v = new SettingValues().set(JmsSettings.SESSIONS, 0);
        assertThatThrownBy(() -> JmsSettings.of(v, YAML))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("sources[0].routes[0].transport.jms.sessions is 0; it must be between 1 and 64")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("1..64"));
        SettingValues t = new SettingValues().set(JmsSettings.PUBLISH_TIMEOUT, Duration.ofMillis(-250));
        assertThatThrownBy(() -> JmsSettings.of(t, YAML))
                .hasMessage("sources[0].routes[0].transport.jms.publish-timeout is PT-0.25S; it must be positive");
    }

    @Test
    void settings_given_by_a_front_end_keep_its_spelling_and_a_java_customization_is_named_in_java() {
        JmsSettings checked = JmsSettings.of(new SettingValues().set(JmsSettings.SESSIONS, 2), YAML);
        // A value that passed the front end's check and is then overridden in Java is named in Java.
        assertThatThrownBy(() -> direct().settings(checked).sessions(0).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("JmsPublisher.Builder.sessions is 0; it must be between 1 and 64");
        assertThatThrownBy(() ->
                        direct().settings(checked).publishTimeout(Duration.ZERO).build())
                .hasMessage("JmsPublisher.Builder.publishTimeout is 0s; it must be positive");
    }

    @Test
    void null_in_a_typed_setter_means_the_default() {
        JmsPublisher.Builder b = direct().destinationType(null).publishTimeout(null);
        assertThat(b.toString()).contains("destinationType=QUEUE", "publishTimeout=PT5S");
    }

    @Test
    void the_checked_settings_reach_the_publisher() {
        try (JmsPublisher publisher = direct().settings(JmsSettings.of(
                        new SettingValues()
                                .set(JmsSettings.DESTINATION_TYPE, JmsPublisher.DestinationType.TOPIC)
                                .set(JmsSettings.SESSIONS, 2)
                                .set(JmsSettings.ASYNC_SEND, true)
                                .set(JmsSettings.PUBLISH_TIMEOUT, Duration.ofMillis(1500)),
                        YAML))
                .build()) {
            assertThat(publisher.toString())
                    .contains("destinationType=TOPIC", "sessions=2", "asyncSend=true", "publishTimeout=1500 ms");
        }
    }

    @Test
    void set_refuses_a_descriptor_that_is_not_a_jms_setting() {
        Setting<Integer> foreign = Setting.builder("sessions", Integer.class)
                .defaultValue(1)
                .doc("Another transport's sessions, of the same name.")
                .build();
        assertThatThrownBy(() -> JmsPublisher.builder().set(foreign, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'sessions' is not a setting of a JMS publisher");
        assertThat(JmsPublisher.builder().set(JmsSettings.SESSIONS, 8).toString())
                .contains("sessions=8");
    }

    private static JmsPublisher.Builder direct() {
        return JmsPublisher.builder().connectionFactory(Artemis.direct());
    }
}
