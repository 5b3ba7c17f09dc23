package io.txoutbox.redis;

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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The publisher's scalar settings are the descriptors of {@link RedisSettings}: their defaults, their
 * refusals named as the caller spelled them, and values set through a descriptor reaching a real Redis.
 */
class RedisSettingsTest {
    private static final String URI = "redis://" + LocalRedis.HOST + ":" + LocalRedis.PORT;
    private static final String SECTION = "sources[0].routes[1].transport.redis";

    @RegisterExtension
    static final LocalRedis redis = new LocalRedis();

    @Test
    void unset_settings_take_their_defaults() {
        RedisSettings defaults = RedisSettings.of(new SettingValues(), RedisSettings.JAVA);
        assertThat(defaults.keyPrefix()).isEmpty();
        assertThat(defaults.maxLen()).isZero();
        assertThat(defaults.commandTimeout()).isEqualTo(Duration.ofSeconds(5));
        try (RedisStreamsPublisher publisher =
                RedisStreamsPublisher.builder().uri(URI).build()) {
            assertThat(publisher.toString()).contains("maxLen=none").contains("commandTimeout=5000 ms");
        }
    }

    @Test
    void a_refusal_from_the_builder_names_the_setting_in_java() {
        assertThatThrownBy(() -> RedisStreamsPublisher.builder()
                        .uri(URI)
                        .commandTimeout(Duration.ZERO)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("RedisStreamsPublisher.Builder.commandTimeout is 0s; it must be positive")
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("RedisStreamsPublisher.Builder.commandTimeout"));
        assertThatThrownBy(() -> RedisStreamsPublisher.builder()
                        .uri(URI)
                        .set(RedisSettings.MAX_LEN, -1L)
                        .build())
                .hasMessage("RedisStreamsPublisher.Builder.maxLen is -1; it must be between 0 and 1099511627776")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).limit()).isEqualTo("0..1099511627776"));
    }

    @Test
    void a_refusal_through_of_names_the_setting_by_its_key() {
        SettingValues v = new SettingValues().set(RedisSettings.MAX_LEN, (1L << 40) + 1);
        assertThatThrownBy(() -> RedisSettings.of(v, Spelling.keys(SECTION)))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage(SECTION + ".max-len is 1099511627777; it must be between 0 and 1099511627776")
                .satisfies(
                        e -> assertThat(((OutboxValidationException) e).field()).isEqualTo(SECTION + ".max-len"));
        assertThat(RedisSettings.KEY_PREFIX.key()).isEqualTo("stream-prefix");
    }

    @Test
    void settings_a_front_end_checked_keep_its_spelling_and_a_java_customization_is_named_in_java() {
        RedisSettings read =
                RedisSettings.of(new SettingValues().set(RedisSettings.MAX_LEN, 10L), Spelling.keys(SECTION));
        assertThatThrownBy(() -> RedisStreamsPublisher.builder()
                        .uri(URI)
                        .settings(read)
                        .commandTimeout(Duration.ZERO)
                        .build())
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("RedisStreamsPublisher.Builder.commandTimeout"));
        try (RedisStreamsPublisher publisher =
                RedisStreamsPublisher.builder().uri(URI).settings(read).build()) {
            assertThat(publisher.toString()).contains("maxLen=~10");
        }
    }

    @Test
    void set_refuses_a_setting_of_another_publisher() {
        Setting<Integer> foreign =
                Setting.builder("batchSize", Integer.class).doc("Not Redis's.").build();
        assertThatThrownBy(() -> RedisStreamsPublisher.builder().set(foreign, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'batchSize' is not a setting of a Redis Streams publisher");
    }

    @Test
    void settings_set_through_their_descriptors_reach_redis() throws Exception {
        String prefix = redis.deleteAfterTest("txoutbox-settings-"
                        + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL))
                + ":";
        String stream = redis.deleteAfterTest(prefix + "order");
        ClaimedEvent event = ClaimedEvents.claimed("order", "o-1", "order.placed", e -> {});
        try (RedisStreamsPublisher publisher = RedisStreamsPublisher.builder()
                .uri(URI)
                .set(RedisSettings.KEY_PREFIX, prefix)
                .set(RedisSettings.COMMAND_TIMEOUT, Duration.ofSeconds(2))
                .build()) {
            assertThat(publisher.toString()).contains("commandTimeout=2000 ms");
            List<PublishOutcome> outcomes =
                    publisher.publish(List.of(event)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsExactly(Outcome.PUBLISHED);
        }
        assertThat(redis.read(stream)).singleElement().satisfies(m -> assertThat(m.eventId())
                .isEqualTo(event.id().toString()));
    }
}
