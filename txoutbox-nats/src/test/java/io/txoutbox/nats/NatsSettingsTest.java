package io.txoutbox.nats;

import static io.txoutbox.test.transport.Publishing.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.harness.TestEnv;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.transport.ClaimedEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The publisher's settings as descriptors ({@link NatsSettings}): their defaults, their refusals named as the
 * caller spelled them (the builder's Java name, or a front end's key), and a value set through them
 * reaching the messages on the local NATS JetStream.
 */
class NatsSettingsTest {
    private static final String URL = "nats://" + TestEnv.get("TXOUTBOX_NATS_HOST", "127.0.0.1") + ":"
            + TestEnv.get("TXOUTBOX_NATS_PORT", "4222");
    private static final String SECTION = "sources[0].routes[0].transport.nats";

    @Test
    void unset_settings_take_the_defaults_the_builder_always_had() {
        NatsSettings defaults = NatsSettings.of(new SettingValues(), NatsSettings.JAVA);
        assertThat(defaults.subjectPrefix()).isEmpty();
        assertThat(defaults.publishTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.connectionName()).isEqualTo("txoutbox");
        assertThat(NatsSettings.SETTINGS)
                .extracting(s -> s.key())
                .containsExactly("subject-prefix", "publish-timeout", "connection-name");
        try (NatsPublisher publisher = NatsPublisher.builder()
                .server(URL)
                .subjectPrefix(null) // null is the default, as with every setting
                .build()) {
            assertThat(publisher.toString()).isEqualTo("NatsPublisher[" + URL + ", publishTimeout=5000 ms]");
        }
    }

    @Test
    void the_builder_names_a_refused_setting_in_java() {
        assertThatThrownBy(() -> NatsPublisher.builder()
                        .server(URL)
                        .publishTimeout(Duration.ZERO)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("NatsPublisher.Builder.publishTimeout is 0s; it must be positive")
                .satisfies(e -> {
                    assertThat(((OutboxValidationException) e).field())
                            .isEqualTo("NatsPublisher.Builder.publishTimeout");
                    assertThat(((OutboxValidationException) e).limit()).isEqualTo("> 0");
                });
        assertThatThrownBy(() -> NatsPublisher.builder()
                        .server(URL)
                        .set(NatsSettings.PUBLISH_TIMEOUT, Duration.ofMinutes(11))
                        .build())
                .hasMessage("NatsPublisher.Builder.publishTimeout is 11m; it must be at most 10m");
        assertThatThrownBy(() ->
                        NatsPublisher.builder().server(URL).connectionName(" ").build())
                .hasMessage("NatsPublisher.Builder.connectionName is ' '; it must not be blank");
    }

    @Test
    void a_front_end_gets_the_refusal_under_its_key() {
        SettingValues v = new SettingValues().set(NatsSettings.SUBJECT_PREFIX, "events..");
        assertThatThrownBy(() -> NatsSettings.of(v, Spelling.keys(SECTION)))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage(SECTION + ".subject-prefix is 'events..'; it must start a subject NATS can publish to:"
                        + " no whitespace or control character, no empty token, no wildcard token")
                .satisfies(e ->
                        assertThat(((OutboxValidationException) e).field()).isEqualTo(SECTION + ".subject-prefix"));
    }

    @Test
    void a_java_customization_after_a_front_ends_settings_is_named_in_java() {
        NatsSettings read = NatsSettings.of(
                new SettingValues().set(NatsSettings.SUBJECT_PREFIX, "events."), Spelling.keys(SECTION));
        assertThatThrownBy(() -> NatsPublisher.builder()
                        .server(URL)
                        .settings(read)
                        .publishTimeout(Duration.ofMillis(-250))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("NatsPublisher.Builder.publishTimeout is PT-0.25S; it must be positive");
    }

    @Test
    void set_refuses_a_setting_that_is_not_the_publishers() {
        assertThatThrownBy(() -> NatsPublisher.builder().set(RelaySettings.BATCH_SIZE, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'batchSize' is not a setting of a NATS publisher");
    }

    @Test
    void settings_given_as_a_checked_value_reach_the_messages() throws Exception {
        String id = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        String prefix = "txoutbox.settings." + id + ".";
        String stream = "txoutbox-settings-" + id;
        NatsSettings read = NatsSettings.of(
                new SettingValues()
                        .set(NatsSettings.SUBJECT_PREFIX, prefix)
                        .set(NatsSettings.PUBLISH_TIMEOUT, Duration.ofMillis(2500)),
                Spelling.keys(SECTION));
        ClaimedEvent event = ClaimedEvents.event(
                "agg-1", "{\"n\":1}".getBytes(StandardCharsets.UTF_8), "application/json", Map.of(), null);
        try (Connection admin = Nats.connect(URL)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(stream)
                    .subjects(prefix + ">")
                    .storageType(StorageType.Memory)
                    .build());
            try {
                try (NatsPublisher publisher =
                        NatsPublisher.builder().server(URL).settings(read).build()) {
                    assertThat(publisher.toString())
                            .isEqualTo(
                                    "NatsPublisher[" + URL + ", subjectPrefix=" + prefix + ", publishTimeout=2500 ms]");
                    assertThat(publish(publisher, List.of(event), Duration.ofSeconds(30)))
                            .containsExactly(PublishOutcome.PUBLISHED);
                }
                // The router's subject (the aggregate type) after the prefix read as a front end's setting.
                assertThat(jsm.getLastMessage(stream, prefix + "contract")
                                .getHeaders()
                                .getFirst("Nats-Msg-Id"))
                        .isEqualTo(event.id().toString());
            } finally {
                jsm.deleteStream(stream);
            }
        }
    }
}
