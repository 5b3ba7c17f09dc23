package io.txoutbox.reliability;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.nats.NatsPublisher;
import io.txoutbox.rabbitmq.RabbitPublisher;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What the brokers refuse, seen through a relay and its table (the transports' own tests check the
 * per-event outcome; here the row ends dead with the broker's reason and the rest of the batch is
 * published). Uses the shared NATS (4222) and RabbitMQ (5672) servers with names of its own.
 */
class BrokerRejectionTest extends OutboxTableTest {
    private static final String NATS_URL = System.getenv().getOrDefault("TXOUTBOX_NATS_URL", "nats://localhost:4222");

    @Test
    void nats_subject_without_a_stream_is_retried_then_dead_after_the_last_attempt_naming_the_subject() {
        Outbox outbox = outboxBuilder().build();
        String prefix = Pg.uniqueName("nostream") + ".";
        List<OutboxEvent> appended = appendCommitted(outbox, List.of(event("o-1")));
        UUID id = appended.get(0).id();
        try (NatsPublisher publisher = NatsPublisher.builder()
                        .server(NATS_URL)
                        .subjectPrefix(prefix)
                        .publishTimeout(Duration.ofSeconds(2))
                        .build();
                Relay relay = outbox.relay(publisher)
                        .maxAttempts(3)
                        .backoff(new Backoff(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), false))
                        .build()) {
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        relay.runOnce();
                        return "dead".equals(column(outbox, id, "status"));
                    });
        }
        assertThat(column(outbox, id, "last_error"))
                .isEqualTo("gave up after 3 attempts; last error: no JetStream stream listens on subject " + prefix
                        + "order (503 no responders): create a stream for it");
        assertThat(column(outbox, id, "attempts")).isEqualTo("3");
    }

    @Test
    void headers_a_raw_row_carries_that_append_refuses_go_dead_before_nats_while_the_batch_is_published()
            throws Exception {
        Outbox outbox = outboxBuilder().build();
        String prefix = Pg.uniqueName("badheaders");
        String stream = prefix.toUpperCase();
        UUID badName = insertRaw(
                outbox,
                "aggregate_type, aggregate_id, event_type, payload, headers",
                "'order', 'o-1', 'order.placed', '\\x7b7d', '{\"bad name\": \"x\"}'");
        UUID badValue = insertRaw(
                outbox,
                "aggregate_type, aggregate_id, event_type, payload, headers",
                "'order', 'o-2', 'order.placed', '\\x7b7d', '{\"h\": \"line\\r\\nInjected: yes\"}'");
        List<OutboxEvent> good = appendCommitted(outbox, List.of(event("o-3")));
        try (Connection nc = Nats.connect(NATS_URL)) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(stream)
                    .subjects(prefix + ".>")
                    .storageType(StorageType.Memory)
                    .build());
            try (NatsPublisher publisher = NatsPublisher.builder()
                            .server(NATS_URL)
                            .subjectPrefix(prefix + ".")
                            .build();
                    Relay relay = outbox.relay(publisher).build()) {
                assertThat(relay.runOnce()).isEqualTo(3);
                assertThat(relay.runOnce()).as("nothing loops").isZero();
            } finally {
                long stored = jsm.getStreamInfo(stream).getStreamState().getMsgCount();
                jsm.deleteStream(stream);
                assertThat(stored).as("the good event of the batch is stored").isEqualTo(1);
            }
        }
        assertThat(column(outbox, good.get(0).id(), "status"))
                .as("published and deleted")
                .isNull();
        assertThat(column(outbox, badName, "status")).isEqualTo("dead");
        // The relay applies append's header rules to rows written by others, so neither reaches NATS.
        assertThat(column(outbox, badName, "last_error"))
                .startsWith("unreadable row: OutboxEvent.headers entry 1: the name has a character (code 32) at 3");
        assertThat(column(outbox, badValue, "status")).isEqualTo("dead");
        assertThat(column(outbox, badValue, "last_error"))
                .startsWith("unreadable row: OutboxEvent.headers 'h' value has a control character (code 13)");
    }

    @Test
    void rabbitmq_unroutable_event_goes_dead_with_the_reason_and_the_routed_one_is_published() throws Exception {
        Outbox outbox = outboxBuilder().build();
        String exchange = Pg.uniqueName("rel_rejections");
        String queue = exchange + "_routed";
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(System.getenv().getOrDefault("TXOUTBOX_RABBIT_HOST", "localhost"));
        factory.setUsername("guest");
        factory.setPassword("guest");
        try (com.rabbitmq.client.Connection amqp = factory.newConnection();
                Channel channel = amqp.createChannel()) {
            channel.exchangeDeclare(exchange, "direct", false, true, null);
            channel.queueDeclare(queue, false, false, true, null);
            channel.queueBind(queue, exchange, "routed");
            try {
                List<OutboxEvent> appended = appendCommitted(
                        outbox,
                        List.of(
                                OutboxEvent.builder("order.placed")
                                        .aggregate("routed", "r-1")
                                        .jsonPayload("{}")
                                        .build(),
                                OutboxEvent.builder("order.placed")
                                        .aggregate("nowhere", "n-1")
                                        .jsonPayload("{}")
                                        .build()));
                try (RabbitPublisher publisher = RabbitPublisher.builder()
                                .host(factory.getHost())
                                .credentials("guest", "guest")
                                .exchange(exchange)
                                .build();
                        Relay relay = outbox.relay(publisher).build()) {
                    assertThat(relay.runOnce()).isEqualTo(2);
                    assertThat(relay.runOnce()).isZero();
                }
                assertThat(channel.messageCount(queue)).isEqualTo(1);
                UUID unroutable = appended.get(1).id();
                assertThat(column(outbox, unroutable, "status")).isEqualTo("dead");
                assertThat(column(outbox, unroutable, "last_error"))
                        .isEqualTo("unroutable: NO_ROUTE exchange=" + exchange + " routing key=nowhere");
                assertThatOutbox(outbox).hasDead(1).hasPending(0);
            } finally {
                channel.queueDelete(queue);
                channel.exchangeDelete(exchange);
            }
        }
    }
}
