package io.txoutbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Router;
import io.txoutbox.test.TcpProxy;
import io.txoutbox.test.transport.ClaimedEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the contract does not cover: trimming, keys of another type, routing, ownership, masking. */
class RedisStreamsPublisherTest {
    private static final String URI = "redis://" + LocalRedis.HOST + ":" + LocalRedis.PORT;

    @RegisterExtension
    static final LocalRedis redis = new LocalRedis();

    private String newKey() {
        return redis.deleteAfterTest(
                "txoutbox-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL));
    }

    @Test
    void maxlen_trims_the_stream_approximately() throws Exception {
        String key = newKey();
        long maxLen = 100;
        try (RedisStreamsPublisher publisher =
                RedisStreamsPublisher.builder().uri(URI).maxLen(maxLen).build()) {
            for (int round = 0; round < 10; round++) {
                assertThat(publish(publisher, events(100, key)))
                        .extracting(PublishOutcome::outcome)
                        .containsOnly(Outcome.PUBLISHED);
            }
        }
        long length = redis.commands().xlen(LocalRedis.bytes(key));
        // '~' keeps at least maxLen entries and removes only whole nodes (100 entries by default), so the
        // stream stays within a node or two of the bound, far below the 1,000 entries added.
        assertThat(length).isBetween(maxLen, maxLen + 300);
    }

    @Test
    void a_key_of_another_type_makes_its_events_dead_and_others_still_publish() throws Exception {
        String wrong = newKey();
        String right = newKey();
        redis.commands().set(LocalRedis.bytes(wrong), LocalRedis.bytes("not a stream"));
        List<ClaimedEvent> batch = new ArrayList<>(events(2, wrong));
        batch.addAll(events(2, right));
        try (RedisStreamsPublisher publisher =
                RedisStreamsPublisher.builder().uri(URI).build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch);
            assertThat(outcomes)
                    .extracting(PublishOutcome::outcome)
                    .containsExactly(Outcome.DEAD, Outcome.DEAD, Outcome.PUBLISHED, Outcome.PUBLISHED);
            assertThat(outcomes.get(0).reason()).contains("WRONGTYPE").contains(wrong);
        }
        assertThat(redis.read(right)).hasSize(2);
    }

    @Test
    void routes_by_aggregate_type_with_the_key_prefix_and_the_events_destination_wins() throws Exception {
        String prefix = newKey() + ":";
        String routed = prefix + "order";
        redis.deleteAfterTest(routed);
        String own = newKey();
        ClaimedEvent byType = event(null, "{\"a\":1}".getBytes(StandardCharsets.UTF_8), "application/json");
        ClaimedEvent byDestination = event(own, new byte[] {0, (byte) 0xFF, 1}, "application/octet-stream");
        try (RedisStreamsPublisher publisher =
                RedisStreamsPublisher.builder().uri(URI).keyPrefix(prefix).build()) {
            assertThat(publish(publisher, List.of(byType, byDestination)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
        }
        assertThat(redis.read(routed)).singleElement().satisfies(m -> {
            assertThat(m.eventId()).isEqualTo(byType.id().toString());
            assertThat(m.headers()).containsEntry(MessageHeaders.AGGREGATE_TYPE, "order");
        });
        assertThat(redis.read(own)).singleElement().satisfies(m -> {
            assertThat(m.payload()).isEqualTo(byDestination.payload());
            assertThat(m.headers()).containsEntry(MessageHeaders.CONTENT_TYPE, "application/octet-stream");
        });
    }

    @Test
    void a_redis_that_stops_answering_yields_retries_after_the_command_timeout() throws Exception {
        String key = newKey();
        try (TcpProxy proxy = new TcpProxy(LocalRedis.HOST, LocalRedis.PORT);
                RedisStreamsPublisher publisher = RedisStreamsPublisher.builder()
                        .uri("redis://" + proxy.host() + ":" + proxy.port())
                        .commandTimeout(Duration.ofMillis(500))
                        .build()) {
            assertThat(publish(publisher, events(1, key)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            proxy.blackhole();
            List<PublishOutcome> outcomes = publish(publisher, events(3, key));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsOnly(Outcome.RETRY);
            assertThat(outcomes.get(0).reason()).contains(key);
        }
        assertThat(redis.read(key)).hasSize(1);
    }

    @Test
    void an_event_the_router_cannot_route_is_dead_without_touching_redis() throws Exception {
        try (RedisStreamsPublisher publisher = RedisStreamsPublisher.builder()
                .uri("redis://127.0.0.1:1") // nothing listens: a connect would fail
                .router(Router.of(e -> ""))
                .build()) {
            assertThat(publish(publisher, events(1, null)))
                    .singleElement()
                    .satisfies(o -> assertThat(o.outcome()).isEqualTo(Outcome.DEAD))
                    .satisfies(o -> assertThat(o.reason()).contains("no stream key"));
        }
    }

    @Test
    void a_connection_of_the_application_is_used_as_it_is_and_never_closed() throws Exception {
        String key = newKey();
        RedisClient client = RedisClient.create(RedisURI.create(LocalRedis.HOST, LocalRedis.PORT));
        try (StatefulRedisConnection<String, String> mine = client.connect()) {
            RedisStreamsPublisher publisher =
                    RedisStreamsPublisher.builder().connection(mine).build();
            assertThat(publish(publisher, events(3, key)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            publisher.close();
            assertThat(mine.isOpen()).isTrue();
            assertThat(mine.sync().xlen(key)).isEqualTo(3);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void the_password_never_shows_in_to_string_or_errors() {
        RedisStreamsPublisher publisher = RedisStreamsPublisher.builder()
                .uri("redis://user:s3cret@127.0.0.1:6379/2")
                .build();
        assertThat(publisher.toString()).doesNotContain("s3cret").contains("127.0.0.1:6379/2");
        publisher.close();
        assertThatThrownBy(() -> RedisStreamsPublisher.builder()
                        .uri("nope://user:s3cret@host")
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("RedisStreamsPublisher.Builder.uri")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void contradicting_or_out_of_bounds_settings_are_rejected_at_build() {
        assertThatThrownBy(() -> RedisStreamsPublisher.builder().build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("uri is missing");
        assertThatThrownBy(() ->
                        RedisStreamsPublisher.builder().uri(URI).maxLen(-1).build())
                .hasMessageContaining("maxLen is -1");
        assertThatThrownBy(() -> RedisStreamsPublisher.builder()
                        .uri(URI)
                        .commandTimeout(Duration.ZERO)
                        .build())
                .hasMessageContaining("commandTimeout");
    }

    private static List<PublishOutcome> publish(RedisStreamsPublisher publisher, List<ClaimedEvent> batch)
            throws Exception {
        return publisher.publish(batch).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static List<ClaimedEvent> events(int n, String destination) {
        List<ClaimedEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(event(destination, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), "application/json"));
        }
        return events;
    }

    private static ClaimedEvent event(String destination, byte[] payload, String contentType) {
        return ClaimedEvents.claimed("order", "o-1", "order.placed", e -> {
            e.payload = payload;
            e.contentType = contentType;
            e.destination = destination;
        });
    }

    @Test
    void connects_when_built_so_the_first_batch_does_not_pay_for_the_connection_set_up() {
        try (RedisStreamsPublisher publisher =
                RedisStreamsPublisher.builder().uri(URI).build()) {
            await().atMost(Duration.ofSeconds(10)).until(publisher::isConnected);
        }
    }

    @Test
    void a_redis_that_is_down_at_build_does_not_fail_the_build() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (RedisStreamsPublisher publisher = RedisStreamsPublisher.builder()
                .uri("redis://127.0.0.1:" + closedPort)
                .build()) {
            assertThat(publisher.isConnected()).isFalse();
        }
    }
}
