package io.txoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RelaySettingsTest {

    @Test
    void a_contradiction_names_both_settings_in_the_callers_spelling() {
        SettingValues v = new SettingValues()
                .set(RelaySettings.LEASE_DURATION, Duration.ofSeconds(5))
                .set(RelaySettings.PUBLISH_TIMEOUT, Duration.ofSeconds(5));
        assertThatThrownBy(() -> RelaySettings.of(v, Backoff.DEFAULT, Spelling.keys("txoutbox.relay")))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("txoutbox.relay.lease-duration is 5s; it must be longer than"
                        + " txoutbox.relay.publish-timeout (5s): ")
                .satisfies(e ->
                        assertThat(((OutboxValidationException) e).field()).isEqualTo("txoutbox.relay.lease-duration"));
        SettingValues minPoll = new SettingValues()
                .set(RelaySettings.POLL_INTERVAL, Duration.ofMillis(10))
                .set(RelaySettings.MIN_POLL_INTERVAL, Duration.ofMillis(20));
        assertThatThrownBy(() -> RelaySettings.of(minPoll, Backoff.DEFAULT, Spelling.keys("sources[1].relay")))
                .hasMessage("sources[1].relay.min-poll-interval is 20ms; it must not be longer than"
                        + " sources[1].relay.poll-interval (10ms)");
    }

    @Test
    void a_setting_set_elsewhere_is_named_where_it_was_set() {
        Spelling yaml = Spelling.keys("sources[0].relay").except(Map.of(RelaySettings.NAME, "sources[0].name"));
        assertThatThrownBy(() -> RelaySettings.of(
                        new SettingValues().set(RelaySettings.NAME, "no spaces"), Backoff.DEFAULT, yaml))
                .hasMessage("sources[0].name is 'no spaces'; it must be 1 to 64 letters, digits, '.', '_' or '-'");
    }

    @Test
    void defaults_resolve_the_derived_settings() {
        RelaySettings d = RelaySettings.defaults();
        assertThat(d.minPollInterval()).isEqualTo(Relay.Builder.DEFAULT_MIN_POLL_INTERVAL);
        assertThat(d.maxBatchBytes()).isEqualTo(Relay.Builder.defaultMaxBatchBytes());
        assertThat(d.retainPublished()).isNull();
        RelaySettings shortPoll = RelaySettings.of(
                new SettingValues().set(RelaySettings.POLL_INTERVAL, Duration.ofMillis(10)),
                Backoff.DEFAULT,
                RelaySettings.JAVA);
        assertThat(shortPoll.minPollInterval()).as("never longer than the poll").isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void a_builder_takes_checked_settings_and_its_own_setters_win_after() {
        RelaySettings read = RelaySettings.of(
                new SettingValues().set(RelaySettings.BATCH_SIZE, 7), Backoff.DEFAULT, Spelling.keys("txoutbox.relay"));
        assertThatThrownBy(() -> Relay.settings().settings(read).maxAttempts(0).validate())
                .as("a customization in Java is named in Java")
                .hasMessage("Relay.Builder.maxAttempts is 0; it must be between 1 and 1000");
        assertThat(Relay.settings().settings(read).validate()).isNotNull();
        assertThatThrownBy(() -> Relay.settings().set(Backoff.BASE, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a setting of a relay");
    }

    @Test
    void a_backoff_refusal_names_its_part_in_the_callers_spelling() {
        SettingValues v =
                new SettingValues().set(Backoff.BASE, Duration.ofSeconds(2)).set(Backoff.MAX, Duration.ofSeconds(1));
        assertThatThrownBy(() -> Backoff.of(v, Spelling.keys("sources[0].relay.backoff")))
                .hasMessage(
                        "sources[0].relay.backoff.max is 1s; it must be at least sources[0].relay.backoff.base (2s)");
        assertThat(Backoff.of(new SettingValues(), Spelling.java("Backoff"))).isEqualTo(Backoff.DEFAULT);
    }

    @Test
    void the_lease_owner_starts_with_the_prefix_given_and_stays_unique() {
        Publisher publisher = batch -> CompletableFuture.completedFuture(
                batch.stream().map(e -> PublishOutcome.PUBLISHED).toList());
        Relay.Builder b = Relay.builder(new FakeStore(), Clock.systemUTC(), publisher)
                .set(RelaySettings.LEASE_OWNER_PREFIX, "pod-7.orders");
        Relay first = b.build();
        Relay second = b.build();
        assertThat(first.owner())
                .startsWith("pod-7.orders:" + ProcessHandle.current().pid() + ":");
        assertThat(second.owner()).as("a nonce keeps instances apart").isNotEqualTo(first.owner());
        assertThat(Relay.builder(new FakeStore(), Clock.systemUTC(), publisher)
                        .name("orders")
                        .build()
                        .owner())
                .as("by default the relay's name and the host")
                .startsWith("orders@");
    }

    @Test
    void a_lease_owner_prefix_is_refused_naming_it_in_each_spelling() {
        assertThatThrownBy(() -> Relay.settings()
                        .set(RelaySettings.LEASE_OWNER_PREFIX, "pod 7\n")
                        .validate())
                .hasMessage("Relay.Builder.leaseOwnerPrefix is 'pod 7\\n'; it must be 1 to 128 letters, digits, '.',"
                        + " '_', '@', '/' or '-'");
        SettingValues v = new SettingValues().set(RelaySettings.LEASE_OWNER_PREFIX, "x".repeat(129));
        assertThatThrownBy(() -> RelaySettings.of(v, Backoff.DEFAULT, Spelling.keys("txoutbox.relay")))
                .isInstanceOf(OutboxValidationException.class)
                .satisfies(e -> assertThat(((OutboxValidationException) e).field())
                        .isEqualTo("txoutbox.relay.lease-owner-prefix"));
    }
}
