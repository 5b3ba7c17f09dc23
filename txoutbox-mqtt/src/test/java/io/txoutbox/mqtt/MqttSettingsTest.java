package io.txoutbox.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.transport.ClaimedEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The publisher's settings are checked once, by {@link MqttSettings}: a refusal names the setting as it was
 * given (in Java from the builder, by its key from a front end), unset settings take their defaults, the
 * builder takes no descriptor that is not one of them, and checked values reach a publisher that talks to
 * the local Mosquitto ({@link Subscriber#BROKER}).
 */
class MqttSettingsTest {
    private static final Spelling YAML = Spelling.keys("sources[0].routes[0].transport.mqtt");

    @Test
    void unset_settings_take_their_defaults() {
        MqttSettings defaults = MqttSettings.of(new SettingValues(), MqttSettings.JAVA);
        assertThat(defaults.clientId()).isNull();
        assertThat(defaults.topicPrefix()).isEmpty();
        assertThat(defaults.qos()).isEqualTo(1);
        assertThat(defaults.completionTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.keepAlive()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.format()).isEqualTo(MqttPublisher.Format.ENVELOPE);
        assertThat(defaults.maxInflight()).isEqualTo(1_000);
        assertThat(MqttSettings.SETTINGS)
                .extracting(Setting::key)
                .containsExactly(
                        "client-id",
                        "topic-prefix",
                        "qos",
                        "completion-timeout",
                        "keep-alive",
                        "format",
                        "max-inflight");
    }

    @Test
    void a_refusal_from_the_builder_names_the_setting_in_java() {
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .qos(0)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("MqttPublisher.Builder.qos is 0; it must be 1 or 2 (QoS 0 is never acknowledged, so no"
                        + " publish could be confirmed)")
                .satisfies(e -> {
                    assertThat(((OutboxValidationException) e).field()).isEqualTo("MqttPublisher.Builder.qos");
                    assertThat(((OutboxValidationException) e).limit()).isEqualTo("1..2");
                });
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .completionTimeout(Duration.ZERO)
                        .build())
                .hasMessage("MqttPublisher.Builder.completionTimeout is 0s; it must be positive");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .keepAlive(Duration.ofMillis(500))
                        .build())
                .hasMessage("MqttPublisher.Builder.keepAlive is 500ms; it must be 1 to 65,535 seconds");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .maxInflight(65_536)
                        .build())
                .hasMessage("MqttPublisher.Builder.maxInflight is 65536; it must be between 1 and 65535");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .topicPrefix("a/#/")
                        .build())
                .hasMessage("MqttPublisher.Builder.topicPrefix is 'a/#/'; it must not contain the wildcards '+' or"
                        + " '#' or a NUL character");
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .clientId("")
                        .build())
                .hasMessage("MqttPublisher.Builder.clientId is ''; it must be 1 to 65,535 bytes in UTF-8");
    }

    @Test
    void a_refusal_through_of_names_the_setting_by_its_key() {
        SettingValues v = new SettingValues().set(MqttSettings.KEEP_ALIVE, Duration.ofSeconds(65_536));
        assertThatThrownBy(() -> MqttSettings.of(v, YAML))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage(
                        "sources[0].routes[0].transport.mqtt.keep-alive is 65536s; it must be 1 to 65,535" + " seconds")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("1..65535 s"));
        assertThatThrownBy(() -> MqttSettings.of(new SettingValues().set(MqttSettings.MAX_INFLIGHT, 0), YAML))
                .hasMessage("sources[0].routes[0].transport.mqtt.max-inflight is 0; it must be between 1 and 65535");
    }

    @Test
    void settings_given_by_a_front_end_keep_its_spelling_and_a_java_customization_is_named_in_java() {
        MqttSettings checked = MqttSettings.of(new SettingValues().set(MqttSettings.QOS, 2), YAML);
        // A value that passed the front end's check and is then overridden in Java is named in Java.
        assertThatThrownBy(() -> MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .settings(checked)
                        .maxInflight(0)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("MqttPublisher.Builder.maxInflight is 0; it must be between 1 and 65535");
    }

    @Test
    void null_in_a_typed_setter_means_the_default() {
        try (MqttPublisher publisher = MqttPublisher.builder()
                .serverUri(Subscriber.BROKER)
                .topicPrefix(null)
                .format(null)
                .completionTimeout(null)
                .keepAlive(null)
                .build()) {
            assertThat(publisher.toString())
                    .contains("qos=1", "format=ENVELOPE", "completionTimeout=5000 ms", "maxInflight=1000");
        }
    }

    @Test
    void the_checked_settings_reach_a_publisher_on_the_local_broker() throws Exception {
        String prefix =
                "txoutbox-test/" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL) + "/";
        String clientId = "txoutbox-settings-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong());
        byte[] payload = "raw bytes".getBytes(StandardCharsets.UTF_8);
        ClaimedEvent event = ClaimedEvents.claimed("order", "o-1", "order.placed", e -> {
            e.payload = payload;
            e.contentType = "text/plain";
        });
        MqttSettings checked = MqttSettings.of(
                new SettingValues()
                        .set(MqttSettings.CLIENT_ID, clientId)
                        .set(MqttSettings.TOPIC_PREFIX, prefix)
                        .set(MqttSettings.QOS, 2)
                        .set(MqttSettings.COMPLETION_TIMEOUT, Duration.ofSeconds(4))
                        .set(MqttSettings.FORMAT, MqttPublisher.Format.RAW)
                        .set(MqttSettings.MAX_INFLIGHT, 10),
                YAML);
        try (Subscriber subscriber = new Subscriber(prefix + "order");
                MqttPublisher publisher = MqttPublisher.builder()
                        .serverUri(Subscriber.BROKER)
                        .settings(checked)
                        .build()) {
            assertThat(publisher.toString())
                    .contains(
                            "clientId=" + clientId,
                            "qos=2",
                            "format=RAW",
                            "completionTimeout=4000 ms",
                            "maxInflight=10");
            List<PublishOutcome> outcomes =
                    publisher.publish(List.of(event)).toCompletableFuture().get(15, TimeUnit.SECONDS);
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsExactly(Outcome.PUBLISHED);
            // The prefix and the raw format reached the wire: the payload alone, on prefix + aggregate type.
            await().atMost(Duration.ofSeconds(10)).until(() -> !subscriber.raw().isEmpty());
            assertThat(subscriber.raw()).singleElement().isEqualTo(payload);
        }
    }

    @Test
    void set_refuses_a_descriptor_that_is_not_an_mqtt_setting() {
        Setting<Integer> foreign = Setting.builder("qos", Integer.class)
                .defaultValue(1)
                .doc("Another transport's qos, of the same name.")
                .build();
        assertThatThrownBy(() -> MqttPublisher.builder().set(foreign, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'qos' is not a setting of an MQTT publisher");
        try (MqttPublisher publisher = MqttPublisher.builder()
                .serverUri(Subscriber.BROKER)
                .set(MqttSettings.QOS, 2)
                .build()) {
            assertThat(publisher.toString()).contains("qos=2");
        }
    }
}
