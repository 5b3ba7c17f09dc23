package io.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The publisher's settings are checked once, by {@link SqsSettings}: a refusal names the setting as it
 * was given (in Java from the builder, by its key from a front end), unset settings take their defaults,
 * the builder takes no descriptor that is not one of them, and the checked values reach a publisher that
 * sends to the local ElasticMQ.
 */
class SqsSettingsTest {
    private static final Spelling YAML = Spelling.keys("sources[0].routes[0].transport.sqs");

    @Test
    void unset_settings_take_their_defaults() {
        SqsSettings defaults = SqsSettings.of(new SettingValues(), SqsSettings.JAVA);
        assertThat(defaults.queuePrefix()).isEmpty();
        assertThat(defaults.publishTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.maxMessageBytes()).isEqualTo(SqsPublisher.DEFAULT_MAX_MESSAGE_BYTES);
        assertThat(defaults.maxConcurrency()).isEqualTo(50);
        assertThat(SqsSettings.SETTINGS)
                .extracting(Setting::key)
                .containsExactly("queue-prefix", "publish-timeout", "max-message-bytes", "max-concurrency");
    }

    @Test
    void a_refusal_from_the_builder_names_the_setting_in_java() {
        assertThatThrownBy(() -> ElasticMq.direct()
                        .publishTimeout(Duration.ofMinutes(11))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("SqsPublisher.Builder.publishTimeout is 11m; it must be at most 10m")
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("SqsPublisher.Builder.publishTimeout"));
        assertThatThrownBy(() -> ElasticMq.direct().maxMessageBytes(1_023).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("SqsPublisher.Builder.maxMessageBytes is 1023; it must be between 1024 and 1048576");
        assertThatThrownBy(() -> ElasticMq.direct().maxConcurrency(0).build())
                .hasMessage("SqsPublisher.Builder.maxConcurrency is 0; it must be between 1 and 1000");
        assertThatThrownBy(() -> ElasticMq.direct().queuePrefix("prod.").build())
                .hasMessage("SqsPublisher.Builder.queuePrefix is 'prod.'; it must start a queue name"
                        + " (letters, digits, '-' and '_', at most 79 characters)");
        // 79 characters and one of the route make 80, SQS's limit; one more is too long.
        ElasticMq.direct().queuePrefix("p".repeat(79)).build().close();
        assertThatThrownBy(() -> ElasticMq.direct().queuePrefix("p".repeat(80)).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("SqsPublisher.Builder.queuePrefix is 'ppp");
    }

    @Test
    void null_in_a_typed_setter_is_the_default() {
        try (SqsPublisher publisher =
                ElasticMq.direct().queuePrefix(null).publishTimeout(null).build()) {
            assertThat(publisher.toString())
                    .doesNotContain("queuePrefix")
                    .contains("maxMessageBytes=262144", "publishTimeout=5000 ms");
        }
    }

    @Test
    void a_refusal_through_of_names_the_setting_by_its_key() {
        SettingValues v = new SettingValues().set(SqsSettings.PUBLISH_TIMEOUT, Duration.ZERO);
        assertThatThrownBy(() -> SqsSettings.of(v, YAML))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("sources[0].routes[0].transport.sqs.publish-timeout is 0s; it must be positive")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("> 0"));
        assertThatThrownBy(
                        () -> SqsSettings.of(new SettingValues().set(SqsSettings.MAX_MESSAGE_BYTES, 2_000_000), YAML))
                .hasMessage("sources[0].routes[0].transport.sqs.max-message-bytes is 2000000;"
                        + " it must be between 1024 and 1048576")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("1024..1048576"));
    }

    @Test
    void settings_given_by_a_front_end_keep_its_spelling_and_a_java_customization_is_named_in_java() {
        SqsSettings checked = SqsSettings.of(new SettingValues().set(SqsSettings.MAX_CONCURRENCY, 10), YAML);
        // A value that passed the front end's check and is then overridden in Java is named in Java.
        assertThatThrownBy(() -> ElasticMq.direct()
                        .settings(checked)
                        .publishTimeout(Duration.ZERO)
                        .build())
                .hasMessage("SqsPublisher.Builder.publishTimeout is 0s; it must be positive");
        // What the front end gave and Java left alone still holds.
        try (SqsPublisher publisher = ElasticMq.direct().settings(checked).build()) {
            assertThat(publisher.toString()).contains("publishTimeout=5000 ms");
        }
    }

    @Test
    void the_checked_settings_reach_a_publisher_that_sends() throws Exception {
        String prefix = ElasticMq.randomName("txoutbox-set-") + "-";
        // The default router names the queue by the aggregate type, contract.
        String url = ElasticMq.createQueue(prefix + "contract");
        try (SqsPublisher publisher = ElasticMq.direct()
                .settings(SqsSettings.of(
                        new SettingValues()
                                .set(SqsSettings.QUEUE_PREFIX, prefix)
                                .set(SqsSettings.PUBLISH_TIMEOUT, Duration.ofMillis(2500))
                                .set(SqsSettings.MAX_MESSAGE_BYTES, 4_096),
                        YAML))
                .build()) {
            assertThat(publisher.toString())
                    .contains("queuePrefix=" + prefix, "maxMessageBytes=4096", "publishTimeout=2500 ms");
            ClaimedEvent small = ClaimedEvents.event(
                    "agg-1", "{\"id\":1}".getBytes(StandardCharsets.UTF_8), "application/json", Map.of(), null);
            ClaimedEvent large =
                    ClaimedEvents.event("agg-2", ClaimedEvents.jsonOfSize(5_000), "application/json", Map.of(), null);
            List<PublishOutcome> outcomes = publisher
                    .publish(List.of(small, large))
                    .toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            // The prefix named the queue; the checked size limit refused the large one before sending.
            assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.PUBLISHED);
            assertThat(outcomes.get(1).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(1).reason()).contains("the limit is 4096 bytes");
        } finally {
            ElasticMq.deleteQueue(url);
        }
    }

    @Test
    void set_refuses_a_descriptor_that_is_not_an_sqs_setting() {
        Setting<String> foreign = Setting.builder("queuePrefix", String.class)
                .defaultValue("")
                .doc("Another transport's prefix, of the same name.")
                .build();
        assertThatThrownBy(() -> SqsPublisher.builder().set(foreign, "prod-"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'queuePrefix' is not a setting of an SQS publisher");
        assertThat(SqsPublisher.builder().set(SqsSettings.QUEUE_PREFIX, "prod-").toString())
                .contains("queuePrefix=prod-");
    }
}
