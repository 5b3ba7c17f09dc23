package io.txoutbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.harness.TestEnv;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.Arrivals;
import io.txoutbox.test.transport.PublisherContract;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transport contract and JetStream's own behaviour, against the local NATS server with JetStream
 * (4222). Every test makes streams of its own (memory storage, unique names) and deletes them.
 */
class NatsPublisherTest extends PublisherContract {
    private static final String HOST = TestEnv.get("TXOUTBOX_NATS_HOST", "127.0.0.1");
    private static final int PORT = Integer.parseInt(TestEnv.get("TXOUTBOX_NATS_PORT", "4222"));

    private static Connection admin;
    private static JetStreamManagement jsm;

    private final List<String> streams = new ArrayList<>();

    @BeforeAll
    static void connect() throws Exception {
        admin = Nats.connect(directUrl());
        jsm = admin.jetStreamManagement();
    }

    @AfterAll
    static void disconnect() throws Exception {
        admin.close();
    }

    @AfterEach
    void deleteStreams() throws Exception {
        for (String stream : streams) {
            try {
                jsm.deleteStream(stream);
            } catch (JetStreamApiException e) {
                // Already gone.
            }
        }
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return new InetSocketAddress(HOST, PORT);
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        // The plain server URL, as a user writes it: the contract proves the outage really cuts it.
        return NatsPublisher.builder()
                .server("nats://" + host + ":" + port)
                .publishTimeout(Duration.ofSeconds(2)) // below the contract relay's 3 s
                .build();
    }

    @Override
    protected Received subscribe(String subject) throws Exception {
        String stream = createStream(subject);
        Dispatcher dispatcher = admin.createDispatcher();
        Arrivals<io.nats.client.Message> arrivals = new Arrivals<>() {
            @Override
            protected Message read(io.nats.client.Message msg) {
                return new Message(headers(msg.getHeaders()), msg.getData());
            }

            @Override
            public void close() {
                admin.closeDispatcher(dispatcher);
            }
        };
        admin.jetStream()
                .subscribe(
                        subject,
                        dispatcher,
                        arrivals::add,
                        false,
                        PushSubscribeOptions.builder().stream(stream)
                                .ordered(true)
                                .build());
        return arrivals;
    }

    @Test
    void a_republished_event_is_stored_once() throws Exception {
        String stream = createStream(destination());
        List<ClaimedEvent> batch = batch(3, destination());
        try (Publisher publisher = direct().build()) {
            assertThat(publish(publisher, batch))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            assertThat(publish(publisher, batch))
                    .as("a duplicate PubAck means the stream holds the event: published")
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
        }
        assertThat(jsm.getStreamInfo(stream).getStreamState().getMsgCount()).isEqualTo(3);
        List<String> storedIds = new ArrayList<>();
        for (long seq = 1; seq <= 3; seq++) {
            storedIds.add(jsm.getMessage(stream, seq).getHeaders().getFirst("Nats-Msg-Id"));
        }
        assertThat(storedIds)
                .containsExactlyElementsOf(
                        batch.stream().map(e -> e.id().toString()).toList());
    }

    @Test
    void a_subject_without_a_stream_is_retried_until_a_stream_captures_it() throws Exception {
        List<ClaimedEvent> batch = batch(2, destination());
        try (Publisher publisher = direct().build()) {
            assertThat(publish(publisher, batch)).allSatisfy(o -> {
                assertThat(o.outcome()).isEqualTo(Outcome.RETRY);
                assertThat(o.reason())
                        .isEqualTo("no JetStream stream listens on subject " + destination()
                                + " (503 no responders): create a stream for it");
            });

            String stream = createStream(destination());
            assertThat(publish(publisher, batch))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            assertThat(jsm.getStreamInfo(stream).getStreamState().getMsgCount()).isEqualTo(2);
        }
    }

    @Test
    void a_message_over_the_servers_max_payload_is_dead_and_the_rest_of_the_batch_is_published() throws Exception {
        String stream = createStream(destination());
        List<ClaimedEvent> batch = new ArrayList<>(batch(2, destination()));
        ClaimedEvent small = batch.get(0);
        byte[] huge = new byte[(int) admin.getServerInfo().getMaxPayload() + 1];
        batch.set(
                0,
                new ClaimedEvent(
                        small.id(),
                        small.aggregateType(),
                        small.aggregateId(),
                        small.eventType(),
                        1,
                        huge,
                        "application/octet-stream",
                        small.headers(),
                        null,
                        destination(),
                        small.createdAt(),
                        1,
                        null));
        try (Publisher publisher = direct().build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch);

            assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(0).reason()).startsWith("NATS refused the message: ");
            assertThat(outcomes.get(1)).isEqualTo(PublishOutcome.PUBLISHED);
        }
        assertThat(jsm.getStreamInfo(stream).getStreamState().getMsgCount()).isEqualTo(1);
    }

    @Test
    void a_subject_nats_cannot_publish_to_is_dead() throws Exception {
        try (Publisher publisher = direct().build()) {
            List<PublishOutcome> outcomes = publish(
                    publisher,
                    List.of(
                            batch(1, "has space").get(0),
                            batch(1, "orders.*").get(0),
                            batch(1, "a..b").get(0)));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsOnly(Outcome.DEAD);
            assertThat(outcomes.get(1).reason()).contains("wildcard");
        }
    }

    @Test
    void the_router_and_prefix_make_the_subject_and_a_given_connection_is_never_closed() throws Exception {
        String prefix = "txoutbox-test-" + random() + ".";
        String stream = createStream(prefix + "contract");
        ClaimedEvent routed = withoutDestination(batch(1, null).get(0));
        try (Connection mine = Nats.connect(directUrl())) {
            try (Publisher publisher = NatsPublisher.builder()
                    .connection(mine)
                    .subjectPrefix(prefix)
                    .build()) {
                assertThat(publish(publisher, List.of(routed))).containsOnly(PublishOutcome.PUBLISHED);
            }
            assertThat(mine.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
        Headers stored = jsm.getLastMessage(stream, prefix + "contract").getHeaders();
        assertThat(stored.getFirst("event-id")).isEqualTo(routed.id().toString());
    }

    @Test
    void the_builder_rejects_contradictions_and_masks_credentials() throws IOException {
        assertThatThrownBy(() -> NatsPublisher.builder().build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("NatsPublisher.Builder: give exactly one of server, options and connection, not 0")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("NatsPublisher.Builder.server");
        assertThatThrownBy(() -> NatsPublisher.builder().server("http://[::1").build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("NatsPublisher.Builder.server is not a NATS URL like nats://host:4222")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("NatsPublisher.Builder.server");
        assertThatThrownBy(() -> NatsPublisher.builder()
                        .server("nats://localhost:4222")
                        .options(Options.builder().build())
                        .build())
                .hasMessageContaining("exactly one of server, options and connection, not 2");
        assertThatThrownBy(() -> NatsPublisher.builder()
                        .server("nats://localhost:4222")
                        .subjectPrefix("events.*.")
                        .build())
                .hasMessageContaining("NatsPublisher.Builder.subjectPrefix is 'events.*.'; it must start a subject");
        try (NatsPublisher publisher = NatsPublisher.builder()
                .server("nats://app:s3cret@localhost:4222")
                .build()) {
            assertThat(publisher.toString()).contains("****@localhost:4222").doesNotContain("s3cret");
        }
    }

    private NatsPublisher.Builder direct() {
        return NatsPublisher.builder().server(directUrl()).publishTimeout(Duration.ofSeconds(3));
    }

    private String createStream(String subject) throws Exception {
        String name = "txoutbox-test-" + random();
        jsm.addStream(StreamConfiguration.builder()
                .name(name)
                .subjects(subject)
                .storageType(StorageType.Memory)
                .build());
        streams.add(name);
        return name;
    }

    private static ClaimedEvent withoutDestination(ClaimedEvent e) {
        return new ClaimedEvent(
                e.id(),
                e.aggregateType(),
                e.aggregateId(),
                e.eventType(),
                e.eventVersion(),
                e.payload(),
                e.contentType(),
                e.headers(),
                e.tenantId(),
                null,
                e.createdAt(),
                e.attempt(),
                e.maxAttempts());
    }

    private static Map<String, String> headers(Headers headers) {
        Map<String, String> map = new HashMap<>();
        if (headers != null) {
            for (String key : headers.keySet()) {
                map.put(key, headers.getFirst(key));
            }
        }
        return map;
    }

    private static String directUrl() {
        return "nats://" + HOST + ":" + PORT;
    }

    private static String random() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    @Test
    void connects_when_built_so_the_first_batch_does_not_pay_for_the_connection_set_up() {
        try (NatsPublisher publisher = (NatsPublisher)
                newPublisher(brokerAddress().getHostString(), brokerAddress().getPort())) {
            await().atMost(Duration.ofSeconds(10)).until(publisher::isConnected);
        }
    }
}
