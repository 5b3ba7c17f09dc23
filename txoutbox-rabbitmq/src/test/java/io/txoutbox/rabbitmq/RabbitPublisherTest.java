package io.txoutbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.Arrivals;
import io.txoutbox.test.transport.PublisherContract;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transport contract and RabbitMQ's own failure modes, against the local RabbitMQ (5672,
 * guest/guest). Each test publishes to a direct exchange of its own, deleted afterwards.
 */
class RabbitPublisherTest extends PublisherContract {

    private static Connection admin;

    private String exchange;
    private final List<String> exchanges = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();

    @BeforeAll
    static void connect() throws Exception {
        admin = LocalRabbit.factory().newConnection("txoutbox-test-admin");
    }

    @AfterAll
    static void disconnect() throws Exception {
        admin.close();
    }

    @BeforeEach
    void declareExchange() throws Exception {
        exchange = newExchange();
    }

    @AfterEach
    void deleteExchangesAndQueues() throws Exception {
        try (Channel ch = admin.createChannel()) {
            for (String q : queues) {
                ch.queueDelete(q);
            }
            for (String x : exchanges) {
                ch.exchangeDelete(x);
            }
        }
    }

    @Override
    protected InetSocketAddress brokerAddress() {
        return new InetSocketAddress(LocalRabbit.HOST, LocalRabbit.PORT);
    }

    @Override
    protected Publisher newPublisher(String host, int port) {
        return RabbitPublisher.builder()
                .host(host)
                .port(port)
                .exchange(exchange)
                .confirmTimeout(Duration.ofSeconds(2)) // below the contract relay's 3 s
                .build();
    }

    @Override
    protected Received subscribe(String routingKey) throws Exception {
        return subscribe(exchange, routingKey);
    }

    @Test
    void an_unroutable_message_is_not_counted_published() throws Exception {
        String routed = destination();
        String nowhere = "nobody-binds-" + random();
        List<ClaimedEvent> batch = new ArrayList<>();
        List<ClaimedEvent> toRouted = batch(4, routed);
        List<ClaimedEvent> toNowhere = batch(4, nowhere);
        for (int i = 0; i < 4; i++) {
            batch.add(toRouted.get(i));
            batch.add(toNowhere.get(i));
        }
        try (Received received = subscribe(routed);
                Publisher publisher = direct().exchange(exchange).build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch);

            for (int i = 0; i < batch.size(); i++) {
                PublishOutcome outcome = outcomes.get(i);
                if (batch.get(i).destination().equals(routed)) {
                    assertThat(outcome.outcome()).as("routed %s", outcome).isEqualTo(Outcome.PUBLISHED);
                } else {
                    assertThat(outcome.outcome()).as("unroutable %s", outcome).isEqualTo(Outcome.DEAD);
                    assertThat(outcome.reason())
                            .isEqualTo("unroutable: NO_ROUTE exchange=" + exchange + " routing key=" + nowhere);
                }
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> received.messages().size() == 4);
            assertThat(received.messages())
                    .extracting(Message::eventId)
                    .containsExactlyInAnyOrderElementsOf(
                            toRouted.stream().map(e -> e.id().toString()).toList());
        }
    }

    @Test
    void the_default_exchange_routes_to_the_queue_named_by_the_routing_key() throws Exception {
        String queue;
        try (Channel ch = admin.createChannel()) {
            queue = ch.queueDeclare("txoutbox-test-q-" + random(), false, false, false, null)
                    .getQueue();
        }
        queues.add(queue);
        try (Publisher publisher = direct().build()) {
            assertThat(publish(publisher, batch(3, queue)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            assertThat(publish(publisher, batch(1, "no-such-queue-" + random())))
                    .singleElement()
                    .satisfies(o -> assertThat(o.reason()).startsWith("unroutable: NO_ROUTE exchange=(default)"));
        }
        try (Channel ch = admin.createChannel()) {
            assertThat(ch.messageCount(queue)).isEqualTo(3);
        }
    }

    @Test
    void a_nack_from_a_full_queue_is_a_retry() throws Exception {
        String routingKey = destination();
        String queue = "txoutbox-test-full-" + random();
        try (Channel ch = admin.createChannel()) {
            ch.queueDeclare(queue, false, false, false, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
            ch.queueBind(queue, exchange, routingKey);
        }
        queues.add(queue);
        try (Publisher publisher = direct().exchange(exchange).build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch(3, routingKey));

            assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.PUBLISHED);
            assertThat(outcomes.subList(1, 3)).allSatisfy(o -> {
                assertThat(o.outcome()).isEqualTo(Outcome.RETRY);
                assertThat(o.reason()).startsWith("nacked by RabbitMQ");
            });
            // The channel stays usable: once the queue has room, the next batch is confirmed.
            try (Channel ch = admin.createChannel()) {
                ch.queuePurge(queue);
            }
            assertThat(publish(publisher, batch(1, routingKey)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
        }
    }

    @Test
    void a_missing_exchange_makes_events_dead_and_the_next_batch_works_once_it_exists() throws Exception {
        String missing = "txoutbox-test-missing-" + random();
        exchanges.add(missing); // deleted afterwards once the test declared it
        try (Publisher publisher = direct().exchange(missing).build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch(3, destination()));

            assertThat(outcomes).allSatisfy(o -> {
                assertThat(o.outcome()).isEqualTo(Outcome.DEAD);
                assertThat(o.reason())
                        .startsWith("exchange " + missing + " does not exist (404 NOT_FOUND")
                        .endsWith("declare it, then revive the event");
            });

            // The 404 closed the channel: the publisher must open a new one for the next batch.
            try (Channel ch = admin.createChannel()) {
                ch.exchangeDeclare(missing, "direct", false, false, null);
            }
            try (Received received = subscribe(missing, destination())) {
                List<ClaimedEvent> next = batch(2, destination());
                assertThat(publish(publisher, next))
                        .extracting(PublishOutcome::outcome)
                        .containsOnly(Outcome.PUBLISHED);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> received.messages().size() == 2);
            }
        }
    }

    @Test
    void a_silent_broker_is_not_counted_published_and_the_next_batch_reconnects() throws Exception {
        try (Received received = subscribe(destination());
                Publisher publisher = RabbitPublisher.builder()
                        .host(proxy().host())
                        .port(proxy().port())
                        .exchange(exchange)
                        .confirmTimeout(Duration.ofSeconds(1))
                        .build()) {
            assertThat(publish(publisher, batch(1, destination())))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);

            proxy().blackhole(); // the network swallows everything: only the confirm timeout notices
            List<ClaimedEvent> batch = batch(3, destination());
            assertThat(publish(publisher, batch)).allSatisfy(o -> {
                assertThat(o.outcome()).isEqualTo(Outcome.RETRY);
                assertThat(o.reason()).startsWith("not confirmed by RabbitMQ within 1000 ms");
            });

            proxy().restore(); // ends the swallowed connection; the next batch opens a new one
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> publishOrTimeOut(publisher, batch).stream()
                            .allMatch(o -> o.outcome() == Outcome.PUBLISHED));
            await().atMost(Duration.ofSeconds(10)).until(() -> received.messages().stream()
                    .map(Message::eventId)
                    .toList()
                    .containsAll(batch.stream().map(e -> e.id().toString()).toList()));
        }
    }

    @Test
    void a_persistent_message_carries_the_event_as_amqp_properties() throws Exception {
        CopyOnWriteArrayList<com.rabbitmq.client.AMQP.BasicProperties> seen = new CopyOnWriteArrayList<>();
        ClaimedEvent event = batch(1, destination()).get(0);
        try (Channel ch = admin.createChannel();
                Publisher publisher = direct().exchange(exchange).build()) {
            String queue = ch.queueDeclare().getQueue();
            ch.queueBind(queue, exchange, destination());
            ch.basicConsume(queue, true, (tag, delivery) -> seen.add(delivery.getProperties()), tag -> {});
            assertThat(publish(publisher, List.of(event)))
                    .extracting(PublishOutcome::outcome)
                    .containsOnly(Outcome.PUBLISHED);
            await().atMost(Duration.ofSeconds(10)).until(() -> !seen.isEmpty());
        }
        com.rabbitmq.client.AMQP.BasicProperties props = seen.get(0);
        assertThat(props.getMessageId()).isEqualTo(event.id().toString());
        assertThat(props.getDeliveryMode()).isEqualTo(2);
        assertThat(props.getContentType()).isEqualTo("application/json");
        assertThat(props.getType()).isEqualTo("contract.tested");
        assertThat(props.getCorrelationId()).isEqualTo(event.correlationId());
        assertThat(props.getTimestamp()).isNotNull();
    }

    @Test
    void the_builder_rejects_contradictions_and_masks_the_password() {
        assertThatThrownBy(() -> RabbitPublisher.builder()
                        .connectionFactory(new ConnectionFactory())
                        .host("rabbit")
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("either connectionFactory or host")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("RabbitPublisher.Builder.connectionFactory");
        assertThatThrownBy(() -> RabbitPublisher.builder().port(70_000).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("RabbitPublisher.Builder.port must be 1-65535, not 70000")
                .extracting(e -> ((OutboxValidationException) e).field())
                .isEqualTo("RabbitPublisher.Builder.port");
        assertThatThrownBy(() ->
                        RabbitPublisher.builder().confirmTimeout(Duration.ZERO).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("RabbitPublisher.Builder.confirmTimeout is 0s; it must be positive");
        assertThatThrownBy(() -> RabbitPublisher.builder().port(70_000).build())
                .hasMessage("RabbitPublisher.Builder.port must be 1-65535, not 70000");
        try (RabbitPublisher publisher = RabbitPublisher.builder()
                .credentials("app", "s3cret")
                .exchange("events")
                .build()) {
            assertThat(publisher.toString()).contains("app:****@").doesNotContain("s3cret");
        }
    }

    private RabbitPublisher.Builder direct() {
        return RabbitPublisher.builder().host(LocalRabbit.HOST).port(LocalRabbit.PORT);
    }

    private String newExchange() throws Exception {
        String name = "txoutbox-test-x-" + random();
        try (Channel ch = admin.createChannel()) {
            ch.exchangeDeclare(name, "direct", false, false, null);
        }
        exchanges.add(name);
        return name;
    }

    private static Received subscribe(String exchange, String routingKey) throws Exception {
        Channel ch = admin.createChannel();
        String queue = ch.queueDeclare().getQueue(); // server-named, exclusive, auto-delete
        ch.queueBind(queue, exchange, routingKey);
        Arrivals<Delivery> arrivals = new Arrivals<>() {
            @Override
            protected Message read(Delivery delivery) {
                Map<String, String> headers = new HashMap<>();
                Map<String, Object> raw = delivery.getProperties().getHeaders();
                if (raw != null) {
                    raw.forEach((k, v) -> headers.put(k, String.valueOf(v)));
                }
                return new Message(headers, delivery.getBody());
            }

            @Override
            public void close() {
                try {
                    ch.close();
                } catch (Exception e) {
                    // The queue is exclusive and auto-delete: it goes with the channel either way.
                }
            }
        };
        ch.basicConsume(queue, true, (tag, delivery) -> arrivals.add(delivery), tag -> {});
        return arrivals;
    }

    private static String random() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    @Test
    void connects_when_built_so_the_first_batch_does_not_pay_for_the_connection_set_up() {
        try (RabbitPublisher publisher = (RabbitPublisher) newPublisher(LocalRabbit.HOST, LocalRabbit.PORT)) {
            await().atMost(Duration.ofSeconds(10)).until(publisher::isConnected);
        }
    }
}
