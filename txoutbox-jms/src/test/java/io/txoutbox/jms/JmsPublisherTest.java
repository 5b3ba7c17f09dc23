package io.txoutbox.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.TcpProxy;
import io.txoutbox.test.transport.ClaimedEvents;
import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the messages look like when read back with the JMS API, and the provider's own behaviour. */
class JmsPublisherTest {
    private final List<Inbox> inboxes = new ArrayList<>();

    @AfterEach
    void closeInboxes() {
        inboxes.forEach(Inbox::close);
    }

    @Test
    void messages_read_back_with_the_jms_api_carry_the_event_id_the_headers_and_the_exact_payload() throws Exception {
        String queue = Artemis.randomName("txoutbox-read-");
        Inbox inbox = inbox(Inbox.queue(queue));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(MessageHeaders.CORRELATION_ID, "corr-7");
        headers.put(MessageHeaders.CAUSATION_ID, "cause-7");
        headers.put("x.trace_id", "t-1");
        headers.put("JMSXGroupID", "not the provider's");
        headers.put("in", "a selector keyword");
        byte[] binary = {0, 1, 2, (byte) 0xFF, (byte) 0xFE, 10};
        byte[] latin1 = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
        List<ClaimedEvent> batch = List.of(
                ClaimedEvents.event(
                        "agg-1", "{\"total\":12}".getBytes(StandardCharsets.UTF_8), "application/json", headers, queue),
                ClaimedEvents.event("agg-2", binary, "application/octet-stream", headers, queue),
                ClaimedEvents.event("agg-3", latin1, "text/plain", headers, queue));
        try (Publisher publisher = direct().build()) {
            assertThat(publish(publisher, batch)).containsOnly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> inbox.raw().size() == 3);

        for (ClaimedEvent sent : batch) {
            Message got = inbox.raw().stream()
                    .filter(m -> property(m, JmsHeaders.EVENT_ID_PROPERTY)
                            .equals(sent.id().toString()))
                    .findFirst()
                    .orElseThrow();
            assertThat(got.getJMSMessageID()).isNotEqualTo("ID:" + sent.id());
            assertThat(got.getJMSDeliveryMode()).isEqualTo(DeliveryMode.PERSISTENT);
            assertThat(got.getJMSCorrelationID()).isEqualTo("corr-7");
            assertThat(got.getJMSType()).isEqualTo(sent.eventType());
            assertThat(got.getStringProperty(JmsHeaders.CONTENT_TYPE_PROPERTY)).isEqualTo(sent.contentType());
            assertThat(got.getStringProperty("x$002etrace$005fid")).isEqualTo("t-1");
            assertThat(JmsHeaders.headersOf(got)).containsAllEntriesOf(MessageHeaders.of(sent));
            assertThat(JmsHeaders.payloadOf(got)).isEqualTo(sent.payload());
        }
        assertThat(byType(inbox, "application/json")).isInstanceOf(TextMessage.class);
        assertThat(((TextMessage) byType(inbox, "application/json")).getText()).isEqualTo("{\"total\":12}");
        assertThat(byType(inbox, "application/octet-stream")).isInstanceOf(BytesMessage.class);
        assertThat(byType(inbox, "text/plain"))
                .as("text that is not UTF-8 travels as bytes, unchanged")
                .isInstanceOf(BytesMessage.class);
    }

    @Test
    void the_events_of_one_aggregate_arrive_in_batch_order_across_the_sessions() throws Exception {
        String queue = Artemis.randomName("txoutbox-order-");
        Inbox inbox = inbox(Inbox.queue(queue));
        List<ClaimedEvent> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            batch.add(ClaimedEvents.event(
                    "agg-" + (i % 6),
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    "application/json",
                    Map.of(),
                    queue));
        }
        try (Publisher publisher = direct().asyncSend(true).sessions(4).build()) {
            assertThat(publish(publisher, batch)).containsOnly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> inbox.raw().size() == 60);
        for (int a = 0; a < 6; a++) {
            String aggregate = "agg-" + a;
            List<String> arrived = inbox.messages().stream()
                    .filter(m -> aggregate.equals(m.headers().get(MessageHeaders.AGGREGATE_ID)))
                    .map(m -> m.eventId())
                    .toList();
            assertThat(arrived)
                    .containsExactlyElementsOf(batch.stream()
                            .filter(e -> e.aggregateId().equals(aggregate))
                            .map(e -> e.id().toString())
                            .toList());
        }
    }

    @Test
    void a_topic_route_reaches_the_topics_subscribers() throws Exception {
        String topic = Artemis.randomName("txoutbox-topic-");
        Inbox first = inbox(Inbox.topic(topic));
        Inbox second = inbox(Inbox.topic(topic));
        List<ClaimedEvent> batch = ClaimedEvents.batch(3, "topic://" + topic);
        try (Publisher publisher = direct().build()) {
            assertThat(publish(publisher, batch)).containsOnly(PublishOutcome.PUBLISHED);
        }
        Set<String> ids = batch.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids(first).equals(ids) && ids(second).equals(ids));
    }

    @Test
    void a_send_the_broker_refuses_is_dead_and_the_rest_of_the_batch_is_published() throws Exception {
        assertRefusedSendIsDead(direct());
    }

    @Test
    void an_asynchronous_send_the_broker_refuses_is_dead_and_the_rest_of_the_batch_is_published() throws Exception {
        assertRefusedSendIsDead(direct().asyncSend(true));
    }

    private void assertRefusedSendIsDead(JmsPublisher.Builder builder) throws Exception {
        String queue = Artemis.randomName("txoutbox-rest-");
        Inbox inbox = inbox(Inbox.queue(queue));
        String forbidden = Artemis.randomName(Artemis.FORBIDDEN_PREFIX);
        List<ClaimedEvent> batch = new ArrayList<>(ClaimedEvents.batch(3, queue));
        batch.set(1, ClaimedEvents.batch(1, forbidden).get(0));
        batch.add(ClaimedEvents.batch(1, "queue://  ").get(0));
        try (Publisher publisher = builder.build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch);

            assertThat(outcomes.get(1).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(1).reason())
                    .startsWith("not allowed to send to JMS destination ")
                    .contains(forbidden)
                    .endsWith("; grant it, then revive the event");
            assertThat(outcomes.get(3).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(3).reason()).contains("names no destination");
            assertThat(List.of(outcomes.get(0), outcomes.get(2))).containsOnly(PublishOutcome.PUBLISHED);
        }
        Set<String> expected =
                Set.of(batch.get(0).id().toString(), batch.get(2).id().toString());
        await().atMost(Duration.ofSeconds(10)).until(() -> ids(inbox).equals(expected));
    }

    @Test
    void asynchronous_sends_to_artemis_without_a_confirmation_window_are_refused_at_build() {
        InetSocketAddress broker = Artemis.address();
        // Without a confirmation window, Artemis completes an asynchronous send before its broker has
        // the message: such a completion must never count as a confirmation.
        assertThatThrownBy(() -> JmsPublisher.builder()
                        .connectionFactory(Artemis.factory(broker.getHostString(), broker.getPort(), false))
                        .asyncSend(true)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageStartingWith("JmsPublisher.Builder.asyncSend: ActiveMQ Artemis completes asynchronous"
                        + " sends before its broker has the message unless the factory's confirmationWindowSize is"
                        + " positive (it is -1)");
    }

    @Test
    void synchronous_sends_are_confirmed_one_by_one() throws Exception {
        String queue = Artemis.randomName("txoutbox-syncsend-");
        Inbox inbox = inbox(Inbox.queue(queue));
        List<ClaimedEvent> batch = ClaimedEvents.batch(10, queue);
        try (JmsPublisher publisher = direct().sessions(2).build()) {
            assertThat(publish(publisher, batch)).containsOnly(PublishOutcome.PUBLISHED);
        }
        Set<String> ids = batch.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
        await().atMost(Duration.ofSeconds(10)).until(() -> ids(inbox).equals(ids));
    }

    @Test
    void a_provider_unreachable_at_build_is_connected_in_the_background_and_publish_answers_at_once() throws Exception {
        String queue = Artemis.randomName("txoutbox-late-");
        Inbox inbox = inbox(Inbox.queue(queue));
        List<ClaimedEvent> batch = ClaimedEvents.batch(3, queue);
        InetSocketAddress broker = Artemis.address();
        try (TcpProxy proxy = new TcpProxy(broker.getHostString(), broker.getPort())) {
            proxy.cut();
            try (Publisher publisher = JmsPublisher.builder()
                    .connectionFactory(Artemis.factory(proxy.host(), proxy.port(), true))
                    .asyncSend(true)
                    .publishTimeout(Duration.ofSeconds(2))
                    .build()) {
                CompletableFuture<List<PublishOutcome>> whileDown =
                        publisher.publish(batch).toCompletableFuture();
                assertThat(whileDown)
                        .as("no connection: answered without waiting")
                        .isDone();
                assertThat(whileDown.get()).allSatisfy(o -> {
                    assertThat(o.outcome()).isEqualTo(Outcome.RETRY);
                    assertThat(o.reason()).contains("(reconnecting)");
                });

                proxy.restore();
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> publish(publisher, batch).stream().allMatch(PublishOutcome.PUBLISHED::equals));
            }
        }
        Set<String> ids = batch.stream().map(e -> e.id().toString()).collect(Collectors.toSet());
        await().atMost(Duration.ofSeconds(10)).until(() -> ids(inbox).containsAll(ids));
    }

    @Test
    void the_builder_rejects_contradictions_and_never_prints_the_password() {
        assertThatThrownBy(() -> JmsPublisher.builder().build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("JmsPublisher.Builder.connectionFactory is required");
        assertThatThrownBy(() -> direct().sessions(0).build())
                .hasMessage("JmsPublisher.Builder.sessions is 0; it must be between 1 and 64");
        assertThatThrownBy(() -> direct().publishTimeout(Duration.ofSeconds(-1)).build())
                .hasMessage("JmsPublisher.Builder.publishTimeout is PT-1S; it must be positive");
        assertThatThrownBy(() -> direct().credentials("app", null).build())
                .hasMessage("JmsPublisher.Builder.credentials needs a non-blank user and a password");
        JmsPublisher.Builder builder = direct().credentials("app", "s3cr3t");
        assertThat(builder.toString()).contains("user=app", "password=****").doesNotContain("s3cr3t");
        try (JmsPublisher publisher = builder.build()) {
            assertThat(publisher.toString())
                    .contains("user=app", "password=****")
                    .doesNotContain("s3cr3t");
        }
    }

    private static JmsPublisher.Builder direct() {
        return JmsPublisher.builder().connectionFactory(Artemis.direct());
    }

    private Inbox inbox(Inbox inbox) {
        inboxes.add(inbox);
        return inbox;
    }

    private static Message byType(Inbox inbox, String contentType) {
        return inbox.raw().stream()
                .filter(m -> contentType.equals(property(m, JmsHeaders.CONTENT_TYPE_PROPERTY)))
                .findFirst()
                .orElseThrow();
    }

    private static String property(Message m, String name) {
        try {
            return String.valueOf(m.getStringProperty(name));
        } catch (jakarta.jms.JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<PublishOutcome> publish(Publisher publisher, List<ClaimedEvent> batch) throws Exception {
        return publisher.publish(batch).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Set<String> ids(Inbox inbox) {
        return inbox.messages().stream().map(m -> m.eventId()).collect(Collectors.toSet());
    }
}
