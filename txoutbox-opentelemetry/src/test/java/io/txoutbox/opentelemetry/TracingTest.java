package io.txoutbox.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.harness.kafka.KafkaBroker;
import io.txoutbox.inbox.Inbox;
import io.txoutbox.kafka.KafkaPublisher;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.RecordingPublisher;
import io.txoutbox.test.SettableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The spans of one event's life, recorded by the real SDK into its in-memory exporter: appended in a
 * transaction on the local PostgreSQL, relayed to a real Kafka broker, read back by a Kafka consumer and
 * processed through the inbox. Attribute and header names are written out here as the conventions and the
 * W3C spell them, not taken from the code under test.
 */
class TracingTest {
    private static KafkaBroker kafka;
    private static HikariDataSource dataSource;

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final List<String> tables = new ArrayList<>();
    private SdkTracerProvider tracerProvider;
    private Tracer appTracer;
    private TxoutboxTracing tracing;

    @BeforeAll
    static void start() throws Exception {
        kafka = KafkaBroker.start();
        dataSource = LocalPostgres.pool("opentelemetry-test");
    }

    @AfterAll
    static void stop() {
        dataSource.close();
        kafka.close();
    }

    @BeforeEach
    void tracer() {
        tracerProvider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        OpenTelemetrySdk sdk =
                OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
        appTracer = sdk.getTracer("the-application");
        tracing = TxoutboxTracing.builder(sdk).messagingSystem("kafka").build();
    }

    @AfterEach
    void dropTables() throws Exception {
        tracerProvider.close();
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            for (String table : tables) {
                st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
                st.execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
            }
        }
    }

    @Test
    void one_trace_runs_from_the_appending_span_through_the_relay_to_the_consumer() throws Exception {
        String topic = kafka.createNewTopic("traced", 1);
        Outbox outbox = outbox();
        OutboxEvent event = placeOrder(outbox, topic, "o-1");
        relay(outbox);

        ConsumerRecord<byte[], byte[]> record = readOne(topic);
        Map<String, String> headers = headers(record);
        Inbox inbox = inbox();
        AtomicInteger applied = new AtomicInteger();
        assertThat(consume(inbox, topic, headers, event.id(), applied)).isTrue();
        assertThat(consume(inbox, topic, headers, event.id(), applied))
                .as("a redelivery is a duplicate")
                .isFalse();
        assertThat(applied).hasValue(1);

        SpanData request = only("POST /orders");
        SpanData create = only("create");
        SpanData send = only("send " + topic);
        List<SpanData> process = named("process " + topic);
        assertThat(process).hasSize(2);

        assertThat(List.of(create, send, process.get(0), process.get(1)))
                .as("one trace")
                .extracting(SpanData::getTraceId)
                .containsOnly(request.getTraceId());

        assertThat(create.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(create.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(create.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")))
                .isEqualTo("create");

        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(send.getParentSpanId())
                .as("send is a child of the creation context")
                .isEqualTo(create.getSpanId());
        assertThat(send.getLinks())
                .as("send links to the creation context")
                .extracting(l -> l.getSpanContext().getSpanId())
                .containsExactly(create.getSpanId());
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.system")))
                .isEqualTo("kafka");
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")))
                .isEqualTo("send");
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
                .isEqualTo(topic);
        assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
                .isEqualTo(event.id().toString());
        assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        assertThat(headers.get("traceparent"))
                .as("the message carries the send span's context, which the consumer continues")
                .isEqualTo("00-" + send.getTraceId() + "-" + send.getSpanId() + "-01");

        SpanData first = process.get(0);
        assertThat(first.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(first.getParentSpanId()).isEqualTo(send.getSpanId());
        assertThat(first.getLinks())
                .extracting(l -> l.getSpanContext().getSpanId())
                .containsExactly(send.getSpanId());
        assertThat(first.getAttributes().get(AttributeKey.stringKey("messaging.operation.type")))
                .isEqualTo("process");
        assertThat(first.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
                .isEqualTo(event.id().toString());
        assertThat(first.getAttributes().get(AttributeKey.booleanKey("txoutbox.inbox.duplicate")))
                .isFalse();
        assertThat(process.get(1).getAttributes().get(AttributeKey.booleanKey("txoutbox.inbox.duplicate")))
                .isTrue();
    }

    @Test
    void each_event_of_a_batch_gets_a_send_span_in_its_own_trace() throws Exception {
        String topic = kafka.createNewTopic("batch", 1);
        Outbox outbox = outbox();
        OutboxEvent first = placeOrder(outbox, topic, "o-1");
        OutboxEvent second = placeOrder(outbox, topic, "o-2");
        relay(outbox); // one claim, one batch of two

        List<ConsumerRecord<byte[], byte[]>> records = read(topic, 2);
        for (ConsumerRecord<byte[], byte[]> record : records) {
            try (ConsumerSpan ignored = tracing.process(topic, headers(record))) {
                // the handler's work
            }
        }

        List<SpanData> requests = named("POST /orders");
        List<SpanData> creates = named("create");
        List<SpanData> sends = named("send " + topic);
        List<SpanData> processes = named("process " + topic);
        assertThat(requests).hasSize(2);
        assertThat(sends).hasSize(2);
        assertThat(processes).hasSize(2);
        assertThat(requests.get(0).getTraceId()).isNotEqualTo(requests.get(1).getTraceId());
        for (SpanData request : requests) {
            SpanData create = inTrace(creates, request.getTraceId());
            SpanData send = inTrace(sends, request.getTraceId());
            SpanData process = inTrace(processes, request.getTraceId());
            assertThat(send.getLinks())
                    .extracting(LinkData::getSpanContext)
                    .extracting(c -> c.getTraceId() + "/" + c.getSpanId())
                    .containsExactly(create.getTraceId() + "/" + create.getSpanId());
            assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
        }
        assertThat(sends)
                .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
                .containsExactlyInAnyOrder(first.id().toString(), second.id().toString());
    }

    @Test
    void a_message_whose_trace_header_was_renamed_starts_a_new_trace_with_no_link() throws Exception {
        String topic = kafka.createNewTopic("renamed", 1);
        Outbox outbox = outbox();
        placeOrder(outbox, topic, "o-1");
        relay(outbox);
        Map<String, String> headers = new HashMap<>(headers(readOne(topic)));
        headers.put("trace-parent", headers.remove("traceparent"));

        try (ConsumerSpan ignored = tracing.process(topic, headers)) {
            // the handler's work
        }

        SpanData process = only("process " + topic);
        assertThat(process.getLinks()).isEmpty();
        assertThat(process.getParentSpanContext().isValid()).isFalse();
        assertThat(process.getTraceId()).isNotEqualTo(only("POST /orders").getTraceId());
    }

    @Test
    void a_retried_send_ends_with_an_error_status_and_the_next_attempt_gets_a_span_of_its_own() {
        SettableClock clock = SettableClock.startingNow();
        Outbox outbox = outbox(clock);
        placeOrder(outbox, "orders", "o-1");
        RecordingPublisher broker = new RecordingPublisher()
                .answer(e -> e.attempt() == 1 ? PublishOutcome.retry("broker said no") : PublishOutcome.PUBLISHED);
        try (Relay relay = outbox.relay(tracing.publisher(broker)).build()) {
            relay.runOnce();
            clock.advance(Duration.ofMinutes(10));
            relay.runOnce();
        }

        List<SpanData> sends = named("send orders");
        assertThat(sends).hasSize(2);
        SpanData failed = sends.get(0);
        SpanData second = sends.get(1);
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getStatus().getDescription()).contains("broker said no");
        assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type")))
                .isEqualTo("retry");
        assertThat(failed.getAttributes().get(AttributeKey.longKey("txoutbox.attempt")))
                .isEqualTo(1L);
        assertThat(second.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(second.getAttributes().get(AttributeKey.longKey("txoutbox.attempt")))
                .isEqualTo(2L);
        assertThat(sends)
                .as("both attempts hang under the one creation context the table keeps")
                .extracting(SpanData::getParentSpanId)
                .containsOnly(only("create").getSpanId());
        assertThat(broker.attempts())
                .extracting(e -> e.traceparent())
                .containsExactly(
                        "00-" + failed.getTraceId() + "-" + failed.getSpanId() + "-01",
                        "00-" + second.getTraceId() + "-" + second.getSpanId() + "-01");
    }

    private Outbox outbox() {
        return outbox(SettableClock.startingNow());
    }

    private Outbox outbox(SettableClock clock) {
        String table = "otel_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        tables.add(table);
        return Outbox.builder(dataSource)
                .table(table)
                .createSchemaIfMissing(true)
                .clock(clock)
                .scope(tracing.producerScope())
                .build();
    }

    private Inbox inbox() {
        String table =
                "otel_inbox_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        tables.add(table);
        return Inbox.builder(dataSource)
                .table(table)
                .consumer("billing")
                .createSchemaIfMissing(true)
                .build();
    }

    private OutboxEvent placeOrder(Outbox outbox, String destination, String orderId) {
        Span request = appTracer
                .spanBuilder("POST /orders")
                .setSpanKind(SpanKind.SERVER)
                .startSpan();
        try (Scope ignored = request.makeCurrent()) {
            return outbox.inTransaction(c -> outbox.append(
                    c,
                    OutboxEvent.builder("order.placed")
                            .aggregate("order", orderId)
                            .destination(destination)
                            .jsonPayload("{\"orderId\":\"" + orderId + "\"}")
                            .build()));
        } finally {
            request.end();
        }
    }

    private void relay(Outbox outbox) {
        try (KafkaPublisher publisher = KafkaPublisher.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .build();
                Relay relay = outbox.relay(tracing.publisher(publisher)).build()) {
            relay.runOnce();
        }
        assertThat(outbox.admin().stats().pending()).isZero();
    }

    private boolean consume(Inbox inbox, String topic, Map<String, String> headers, UUID eventId, AtomicInteger applied)
            throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            boolean processed = tracing.processOnce(inbox, c, topic, headers, eventId, tx -> applied.incrementAndGet());
            c.commit();
            return processed;
        }
    }

    private static ConsumerRecord<byte[], byte[]> readOne(String topic) {
        return read(topic, 1).get(0);
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(String topic, int n) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= n;
            });
        }
        return records;
    }

    private static Map<String, String> headers(ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> headers = new HashMap<>();
        for (Header h : record.headers()) {
            headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    private SpanData only(String name) {
        List<SpanData> spans = named(name);
        assertThat(spans).as("spans named '%s'", name).hasSize(1);
        return spans.get(0);
    }

    private List<SpanData> named(String name) {
        return exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals(name))
                .toList();
    }

    private static SpanData inTrace(List<SpanData> spans, String traceId) {
        List<SpanData> in =
                spans.stream().filter(s -> s.getTraceId().equals(traceId)).toList();
        assertThat(in).as("spans of trace %s", traceId).hasSize(1);
        return in.get(0);
    }
}
