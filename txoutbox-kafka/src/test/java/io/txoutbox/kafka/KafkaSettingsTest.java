package io.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.harness.kafka.KafkaBroker;
import io.txoutbox.harness.kafka.SharedKafka;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The publisher's settings are checked once, by {@link KafkaSettings}: a refusal names the setting as it
 * was given (in Java from the builder, by its key from a front end), unset settings take their defaults
 * (or the producer properties' values), the builder takes no descriptor that is not one of them, and the
 * checked values reach a publisher sending to the real broker.
 */
@ExtendWith(SharedKafka.class)
class KafkaSettingsTest {
    private static final Spelling YAML = Spelling.keys("sources[0].routes[0].transport.kafka");
    private static final String NOWHERE = "127.0.0.1:9";

    @Test
    void unset_settings_take_their_defaults() {
        KafkaSettings defaults = KafkaSettings.of(new SettingValues(), KafkaSettings.JAVA);
        assertThat(defaults.topicPrefix()).isNull();
        assertThat(defaults.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.deliveryTimeout()).isEqualTo(Duration.ofSeconds(8));
        assertThat(KafkaSettings.SETTINGS)
                .extracting(Setting::key)
                .containsExactly("topic-prefix", "request-timeout", "delivery-timeout");
        try (KafkaPublisher publisher =
                KafkaPublisher.builder().bootstrapServers(NOWHERE).build()) {
            assertThat(publisher.toString()).contains("requestTimeout=5000 ms", "deliveryTimeout=8000 ms");
        }
    }

    @Test
    void a_refusal_from_the_builder_names_the_setting_in_java() {
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .requestTimeout(Duration.ZERO)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("KafkaPublisher.requestTimeout is 0s; it must be positive")
                .satisfies(e ->
                        assertThat(((OutboxValidationException) e).field()).isEqualTo("KafkaPublisher.requestTimeout"));
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .deliveryTimeout(Duration.ofMillis(Integer.MAX_VALUE + 1L))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("KafkaPublisher.deliveryTimeout is ")
                .hasMessageContaining("; it must be at most ");
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .topicPrefix(" ")
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("KafkaPublisher.topicPrefix is ' '; it must not be blank (leave it unset for none)");
    }

    @Test
    void a_refusal_through_of_names_the_setting_by_its_key() {
        SettingValues v = new SettingValues().set(KafkaSettings.DELIVERY_TIMEOUT, Duration.ZERO);
        assertThatThrownBy(() -> KafkaSettings.of(v, YAML))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("sources[0].routes[0].transport.kafka.delivery-timeout is 0s; it must be positive")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("> 0"));
    }

    @Test
    void settings_given_by_a_front_end_keep_its_spelling_and_a_java_customization_is_named_in_java() {
        KafkaSettings checked =
                KafkaSettings.of(new SettingValues().set(KafkaSettings.DELIVERY_TIMEOUT, Duration.ofSeconds(1)), YAML);
        // The delivery timeout must cover the request timeout and linger.ms: a rule of the builder, which
        // names the settings as the front end spelled them.
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .settings(checked)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("sources[0].routes[0].transport.kafka.delivery-timeout 1000 ms is shorter than"
                        + " sources[0].routes[0].transport.kafka.request-timeout 5000 ms + linger.ms 5 ms; Kafka"
                        + " needs it at least as long")
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("sources[0].routes[0].transport.kafka.delivery-timeout"));
        // A value that passed the front end's check and is then overridden in Java is named in Java.
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .settings(checked)
                        .deliveryTimeout(Duration.ofSeconds(2))
                        .build())
                .hasMessage("KafkaPublisher.deliveryTimeout 2000 ms is shorter than"
                        + " sources[0].routes[0].transport.kafka.request-timeout 5000 ms + linger.ms 5 ms; Kafka"
                        + " needs it at least as long");
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .settings(checked)
                        .requestTimeout(Duration.ZERO)
                        .build())
                .hasMessage("KafkaPublisher.requestTimeout is 0s; it must be positive");
    }

    @Test
    void a_timeout_left_to_the_producer_properties_is_checked_by_the_same_rule_under_the_property() {
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .producerProperty("request.timeout.ms", "0")
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("KafkaPublisher.producerProperties request.timeout.ms is 0s; it must be positive")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).field()).isEqualTo("request.timeout.ms"));
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .settings(KafkaSettings.of(
                                new SettingValues().set(KafkaSettings.REQUEST_TIMEOUT, Duration.ofSeconds(2)), YAML))
                        .producerProperty("request.timeout.ms", "3000")
                        .build())
                .hasMessage("sources[0].routes[0].transport.kafka.request-timeout is 2000 ms but producerProperties"
                        + " request.timeout.ms is 3000; set it once");
        try (KafkaPublisher publisher = KafkaPublisher.builder()
                .bootstrapServers(NOWHERE)
                .producerProperty("request.timeout.ms", "2000")
                .producerProperty("delivery.timeout.ms", "4000")
                .build()) {
            assertThat(publisher.toString()).contains("requestTimeout=2000 ms", "deliveryTimeout=4000 ms");
        }
    }

    @Test
    void the_checked_settings_reach_a_publisher_of_the_real_broker() throws Exception {
        String prefix = KafkaBroker.newTopic("settings") + ".";
        String topic = prefix + "order";
        SharedKafka.broker().createTopic(topic, 1);
        ClaimedEvent placed = KafkaPublisherTest.event("o-7", null, "{\"n\":7}".getBytes(StandardCharsets.UTF_8));
        KafkaSettings checked = KafkaSettings.of(
                new SettingValues()
                        .set(KafkaSettings.TOPIC_PREFIX, prefix)
                        .set(KafkaSettings.REQUEST_TIMEOUT, Duration.ofSeconds(2))
                        .set(KafkaSettings.DELIVERY_TIMEOUT, Duration.ofSeconds(4)),
                YAML);
        try (TopicReader reader = new TopicReader(SharedKafka.broker().bootstrapServers(), topic);
                KafkaPublisher publisher = KafkaPublisher.builder()
                        .bootstrapServers(SharedKafka.broker().bootstrapServers())
                        .settings(checked)
                        .build()) {
            assertThat(publisher.toString()).contains("requestTimeout=2000 ms", "deliveryTimeout=4000 ms");
            List<PublishOutcome> outcomes =
                    publisher.publish(List.of(placed)).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(outcomes).containsExactly(PublishOutcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10)).until(() -> !reader.raw().isEmpty());
            assertThat(reader.raw().get(0).topic()).isEqualTo(topic);
        }
    }

    @Test
    void set_refuses_a_descriptor_that_is_not_a_kafka_setting() {
        Setting<Duration> foreign = Setting.builder("requestTimeout", Duration.class)
                .defaultValue(Duration.ofSeconds(5))
                .doc("Another transport's request timeout, of the same name.")
                .build();
        assertThatThrownBy(() -> KafkaPublisher.builder().set(foreign, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'requestTimeout' is not a setting of a Kafka publisher");
        try (KafkaPublisher publisher = KafkaPublisher.builder()
                .bootstrapServers(NOWHERE)
                .set(KafkaSettings.REQUEST_TIMEOUT, Duration.ofSeconds(3))
                .build()) {
            assertThat(publisher.toString()).contains("requestTimeout=3000 ms");
        }
    }
}
