package io.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.MessageHeaders;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.spi.Publisher;
import io.txoutbox.test.transport.ClaimedEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** SQS's own rules against ElasticMQ: FIFO, partial batch failures, the size limit, the attribute limit. */
class SqsPublisherTest {
    private final List<String> queues = new ArrayList<>();
    private final List<QueueReader> readers = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        readers.forEach(QueueReader::close);
        queues.forEach(ElasticMq::deleteQueue);
    }

    @Test
    void a_fifo_queue_gets_the_aggregate_as_group_and_the_event_id_as_deduplication_id() throws Exception {
        String name = ElasticMq.randomName("txoutbox-fifo-") + ".fifo";
        String url = fifoQueue(name);
        List<ClaimedEvent> batch = ClaimedEvents.batch(6, name);
        try (Publisher publisher = ElasticMq.direct().build()) {
            assertThat(publish(publisher, batch)).containsOnly(PublishOutcome.PUBLISHED);
            assertThat(approximateMessages(url)).isEqualTo(6);

            assertThat(publish(publisher, batch))
                    .as("a re-publish inside the deduplication interval is accepted")
                    .containsOnly(PublishOutcome.PUBLISHED);
            assertThat(approximateMessages(url)).as("and stored once").isEqualTo(6);
        }
        QueueReader reader = read(url);
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.raw().size() == 6);
        for (Message m : reader.raw()) {
            Map<String, String> headers = SqsMessages.headersOf(m);
            assertThat(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
                    .isEqualTo(headers.get(MessageHeaders.AGGREGATE_ID));
            assertThat(m.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID))
                    .isEqualTo(headers.get(MessageHeaders.EVENT_ID));
        }
        for (String aggregate : List.of("agg-0", "agg-1")) {
            assertThat(idsOf(reader.raw(), aggregate))
                    .as("group %s keeps the batch order", aggregate)
                    .containsExactlyElementsOf(batch.stream()
                            .filter(e -> e.aggregateId().equals(aggregate))
                            .map(e -> e.id().toString())
                            .toList());
        }
    }

    @Test
    void an_aggregate_id_sqs_refuses_as_group_id_becomes_a_stable_hash() {
        String longId = "a".repeat(200);
        assertThat(Entries.groupId("order-7")).isEqualTo("order-7");
        assertThat(Entries.groupId(longId)).hasSize(64).isEqualTo(Entries.groupId(longId));
        assertThat(Entries.groupId("has space")).hasSize(64).isNotEqualTo(Entries.groupId("has  space"));
    }

    @Test
    void one_entry_sqs_refuses_is_dead_and_the_rest_of_the_batch_is_published() throws Exception {
        String name = ElasticMq.randomName("txoutbox-partial-");
        QueueReader reader = read(queue(name));
        List<ClaimedEvent> batch = new ArrayList<>(ClaimedEvents.batch(5, name));
        ClaimedEvent good = batch.get(2);
        // A row written by another program: valid UTF-8 JSON text with a raw control character, which
        // SQS refuses in a message body.
        batch.set(
                2,
                ClaimedEvents.event(
                        good.aggregateId(),
                        "{\"note\":\"bell\u0007\"}".getBytes(StandardCharsets.UTF_8),
                        "application/json",
                        Map.of(),
                        name));
        try (Publisher publisher = ElasticMq.direct().build()) {
            List<PublishOutcome> outcomes = publish(publisher, batch);

            assertThat(outcomes.get(2).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(2).reason()).startsWith("SQS refused the message on queue " + name + " (");
            assertThat(List.of(outcomes.get(0), outcomes.get(1), outcomes.get(3), outcomes.get(4)))
                    .containsOnly(PublishOutcome.PUBLISHED);
        }
        Set<String> expected = Set.of(
                batch.get(0).id().toString(),
                batch.get(1).id().toString(),
                batch.get(3).id().toString(),
                batch.get(4).id().toString());
        await().atMost(Duration.ofSeconds(10)).until(() -> ids(reader).containsAll(expected));
        assertThat(ids(reader)).isEqualTo(expected);
    }

    @Test
    void a_message_over_the_size_limit_is_dead_before_sending_and_the_reason_names_the_limit() throws Exception {
        String name = ElasticMq.randomName("txoutbox-size-");
        QueueReader reader = read(queue(name));
        ClaimedEvent small = ClaimedEvents.batch(1, name).get(0);
        ClaimedEvent big =
                ClaimedEvents.event("agg-big", ClaimedEvents.jsonOfSize(262_144), "application/json", Map.of(), name);
        try (Publisher publisher = ElasticMq.direct().build()) {
            List<PublishOutcome> outcomes = publish(publisher, List.of(big, small));

            assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.DEAD);
            assertThat(outcomes.get(0).reason())
                    .matches("the SQS message is \\d+ bytes \\(body and attributes\\); the limit is 262144 bytes"
                            + " \\(SqsPublisher.Builder.maxMessageBytes\\)");
            assertThat(outcomes.get(1)).isEqualTo(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids(reader).contains(small.id().toString()));
        assertThat(ids(reader)).containsExactly(small.id().toString());
    }

    @Test
    void large_messages_are_packed_into_requests_that_stay_within_the_limit() throws Exception {
        String name = ElasticMq.randomName("txoutbox-pack-");
        QueueReader reader = read(queue(name));
        List<ClaimedEvent> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(ClaimedEvents.event(
                    "agg-" + i, ClaimedEvents.jsonOfSize(150_000), "application/json", Map.of(), name));
        }
        // Ten entries of 150 kB are over the 1 MiB that one SendMessageBatch request may carry in all:
        // sent as one request, ElasticMQ (like SQS) would refuse the whole of it.
        try (Publisher publisher = ElasticMq.direct()
                .maxMessageBytes(SqsPublisher.MAX_MESSAGE_BYTES)
                .build()) {
            assertThat(publish(publisher, batch)).containsOnly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.raw().size() == 10);
        assertThat(reader.messages())
                .allSatisfy(m -> assertThat(m.payload()).isEqualTo(ClaimedEvents.jsonOfSize(150_000)));
    }

    @Test
    void headers_beyond_the_ten_attributes_travel_in_one_json_attribute_and_read_back_exactly() throws Exception {
        String name = ElasticMq.randomName("txoutbox-headers-");
        QueueReader reader = read(queue(name));
        Map<String, String> own = new LinkedHashMap<>();
        own.put(MessageHeaders.CORRELATION_ID, "corr-1");
        own.put(MessageHeaders.CAUSATION_ID, "cause-1");
        own.put(MessageHeaders.TRACEPARENT, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        own.put(MessageHeaders.TRACESTATE, "vendor=x");
        for (int i = 0; i < 12; i++) {
            own.put("x-custom-" + i, "value " + i + " \u00e9\u20ac\ud83d\ude00");
        }
        ClaimedEvent event =
                ClaimedEvents.event("agg-1", "{}".getBytes(StandardCharsets.UTF_8), "application/json", own, name);
        try (Publisher publisher = ElasticMq.direct().build()) {
            assertThat(publish(publisher, List.of(event))).containsExactly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.raw().size() == 1);
        Message m = reader.raw().get(0);

        assertThat(m.messageAttributes()).hasSize(SqsMessages.MAX_ATTRIBUTES);
        assertThat(m.messageAttributes().keySet())
                .containsExactlyInAnyOrderElementsOf(withHeadersAttribute(SqsMessages.ATTRIBUTE_HEADERS));
        assertThat(m.messageAttributes().get(SqsMessages.HEADERS_ATTRIBUTE).stringValue())
                .as("written in ASCII")
                .matches("\\p{ASCII}+");
        assertThat(SqsMessages.headersOf(m)).isEqualTo(MessageHeaders.of(event));
    }

    @Test
    void a_binary_payload_travels_as_base64_and_reads_back_exactly() throws Exception {
        String name = ElasticMq.randomName("txoutbox-binary-");
        QueueReader reader = read(queue(name));
        byte[] bytes = new byte[256];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        ClaimedEvent event = ClaimedEvents.event("agg-1", bytes, "application/octet-stream", Map.of(), name);
        try (Publisher publisher = ElasticMq.direct().build()) {
            assertThat(publish(publisher, List.of(event))).containsExactly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.raw().size() == 1);
        assertThat(reader.raw().get(0).body())
                .isEqualTo(java.util.Base64.getEncoder().encodeToString(bytes));
        assertThat(SqsMessages.payloadOf(reader.raw().get(0))).isEqualTo(bytes);
    }

    @Test
    void a_queue_that_does_not_exist_is_dead_and_works_once_created() throws Exception {
        String name = ElasticMq.randomName("txoutbox-missing-");
        List<ClaimedEvent> batch = ClaimedEvents.batch(2, name);
        try (Publisher publisher = ElasticMq.direct().build()) {
            assertThat(publish(publisher, batch)).allSatisfy(o -> {
                assertThat(o.outcome()).isEqualTo(Outcome.DEAD);
                assertThat(o.reason())
                        .isEqualTo("SQS queue " + name + " does not exist: create it, then revive the event");
            });

            queue(name);
            assertThat(publish(publisher, batch))
                    .as("revived after the queue was created")
                    .containsOnly(PublishOutcome.PUBLISHED);
        }
    }

    @Test
    void a_route_that_cannot_name_an_sqs_queue_is_dead() throws Exception {
        try (Publisher publisher = ElasticMq.direct().build()) {
            List<PublishOutcome> outcomes = publish(
                    publisher,
                    List.of(
                            ClaimedEvents.batch(1, "has space").get(0),
                            ClaimedEvents.batch(1, "q".repeat(81)).get(0),
                            ClaimedEvents.batch(1, "orders.v1").get(0)));
            assertThat(outcomes).extracting(PublishOutcome::outcome).containsOnly(Outcome.DEAD);
            assertThat(outcomes.get(1).reason()).contains("81 characters; SQS allows at most 80");
            assertThat(outcomes.get(2).reason()).contains("the character '.'");
        }
    }

    @Test
    void the_router_and_prefix_name_the_queue_a_url_is_used_as_it_is_and_a_given_client_stays_open() throws Exception {
        String prefix = ElasticMq.randomName("txoutbox-") + "-";
        QueueReader routed = read(queue(prefix + "contract"));
        String otherName = ElasticMq.randomName("txoutbox-url-");
        String otherUrl = queue(otherName);
        QueueReader byUrl = read(otherUrl);
        ClaimedEvent byRouter = ClaimedEvents.batch(1, null).get(0);
        ClaimedEvent byOwnUrl = ClaimedEvents.batch(1, otherUrl).get(0);
        try (Publisher publisher = SqsPublisher.builder()
                .client(ElasticMq.admin())
                .queuePrefix(prefix)
                .build()) {
            assertThat(publish(publisher, List.of(byRouter, byOwnUrl))).containsOnly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids(routed).contains(byRouter.id().toString())
                        && ids(byUrl).contains(byOwnUrl.id().toString()));
        assertThat(ElasticMq.admin().listQueues().get(5, TimeUnit.SECONDS).queueUrls())
                .as("the given client still works after close")
                .contains(otherUrl);
    }

    @Test
    void the_prefix_goes_before_a_routed_queue_name_but_never_before_a_routed_queue_url() throws Exception {
        String prefix = ElasticMq.randomName("txoutbox-") + "-";
        QueueReader byName = read(queue(prefix + "named"));
        String url = queue(ElasticMq.randomName("txoutbox-url-"));
        QueueReader byUrl = read(url);
        ClaimedEvent toName =
                ClaimedEvents.event("a-1", "{}".getBytes(StandardCharsets.UTF_8), "application/json", Map.of(), null);
        ClaimedEvent toUrl =
                ClaimedEvents.event("a-2", "{}".getBytes(StandardCharsets.UTF_8), "application/json", Map.of(), null);
        try (Publisher publisher = ElasticMq.direct()
                .queuePrefix(prefix)
                .router(e -> e.id().equals(toUrl.id()) ? url : "named")
                .build()) {
            assertThat(publish(publisher, List.of(toName, toUrl))).containsOnly(PublishOutcome.PUBLISHED);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids(byName).contains(toName.id().toString())
                        && ids(byUrl).contains(toUrl.id().toString()));
        assertThat(ids(byName)).doesNotContain(toUrl.id().toString());
    }

    @Test
    void the_builder_rejects_contradictions_and_never_prints_the_secret() {
        assertThatThrownBy(() -> SqsPublisher.builder()
                        .client(ElasticMq.admin())
                        .region("eu-west-1")
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("SqsPublisher.Builder: give either client or region/endpoint/credentials, not both");
        assertThatThrownBy(() -> ElasticMq.direct().maxMessageBytes(2_000_000).build())
                .hasMessage("SqsPublisher.Builder.maxMessageBytes is 2000000; it must be between 1024 and 1048576");
        assertThatThrownBy(
                        () -> ElasticMq.direct().publishTimeout(Duration.ZERO).build())
                .hasMessage("SqsPublisher.Builder.publishTimeout is 0s; it must be positive");
        assertThatThrownBy(() -> ElasticMq.direct().queuePrefix("prod.").build())
                .hasMessageStartingWith("SqsPublisher.Builder.queuePrefix is 'prod.'; it must start a queue name");
        assertThatThrownBy(() -> ElasticMq.direct().credentials("key", " ").build())
                .hasMessage("SqsPublisher.Builder.credentials needs a non-blank access key id and secret key");
        assertThatThrownBy(
                        () -> ElasticMq.direct().endpoint("ftp://localhost:1").build())
                .hasMessage(
                        "SqsPublisher.Builder.endpoint must be an http or https URL with a host, not 'ftp://localhost:1'");
        SqsPublisher.Builder builder = ElasticMq.direct().credentials("AKIDEXAMPLE", "s3cr3t-key");
        try (SqsPublisher publisher = builder.build()) {
            assertThat(publisher.toString())
                    .contains("credentials=static ****")
                    .doesNotContain("s3cr3t-key", "AKIDEXAMPLE");
            assertThat(builder.toString()).doesNotContain("s3cr3t-key", "AKIDEXAMPLE");
        }
    }

    private String queue(String name) {
        String url = ElasticMq.createQueue(name);
        queues.add(url);
        return url;
    }

    private String fifoQueue(String name) {
        String url = ElasticMq.createFifoQueue(name);
        queues.add(url);
        return url;
    }

    private QueueReader read(String url) {
        QueueReader reader = new QueueReader(url);
        readers.add(reader);
        return reader;
    }

    private static int approximateMessages(String url) throws Exception {
        return Integer.parseInt(ElasticMq.admin()
                .getQueueAttributes(
                        r -> r.queueUrl(url).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                .get(5, TimeUnit.SECONDS)
                .attributes()
                .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
    }

    private static List<PublishOutcome> publish(Publisher publisher, List<ClaimedEvent> batch) throws Exception {
        return publisher.publish(batch).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Set<String> ids(QueueReader reader) {
        return reader.messages().stream().map(m -> m.eventId()).collect(Collectors.toSet());
    }

    private static List<String> idsOf(List<Message> messages, String aggregate) {
        return messages.stream()
                .map(SqsMessages::headersOf)
                .filter(h -> aggregate.equals(h.get(MessageHeaders.AGGREGATE_ID)))
                .map(h -> h.get(MessageHeaders.EVENT_ID))
                .toList();
    }

    private static List<String> withHeadersAttribute(List<String> names) {
        List<String> all = new ArrayList<>(names);
        all.add(SqsMessages.HEADERS_ATTRIBUTE);
        return all;
    }
}
