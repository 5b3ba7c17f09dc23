package io.txoutbox.rabbitmq;

import static io.txoutbox.test.cloudevents.CloudEventsAssert.assertMapped;
import static io.txoutbox.test.transport.Publishing.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.transport.ClaimedEvents;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The opt-in CloudEvents format against the local RabbitMQ: the message is read back from a queue and
 * parsed by the CloudEvents SDK's generic binary reader, told only what the AMQP binding says (the {@code
 * cloudEvents_} or {@code cloudEvents:} prefix, {@code content-type} for {@code datacontenttype}).
 */
class RabbitCloudEventsTest {

    @Test
    void messages_arrive_as_binary_mode_cloudevents_of_the_amqp_binding() throws Exception {
        ConnectionFactory factory = LocalRabbit.factory();
        String queue =
                "txoutbox-ce-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        ClaimedEvent event = event(queue);
        try (Connection connection = factory.newConnection("txoutbox-ce-test");
                Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, false, false, true, null);
            try (RabbitPublisher publisher = RabbitPublisher.builder()
                    .host(LocalRabbit.HOST)
                    .port(LocalRabbit.PORT)
                    .cloudEvents(CloudEventsMapping.source("/orders"))
                    .build()) {
                assertThat(publish(publisher, List.of(event), Duration.ofSeconds(30)))
                        .extracting(PublishOutcome::outcome)
                        .containsExactly(Outcome.PUBLISHED);
            }
            AtomicReference<GetResponse> got = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                got.set(channel.basicGet(queue, true));
                return got.get() != null;
            });
            channel.queueDelete(queue);

            AMQP.BasicProperties props = got.get().getProps();
            CloudEvent ce = read(props, got.get().getBody());
            assertMapped(ce, event, URI.create("/orders"));
            assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION)).isEqualTo("3");
            assertThat(ce.getData().toBytes()).isEqualTo(event.payload());

            assertThat(props.getMessageId()).isEqualTo(event.id().toString());
            assertThat(props.getHeaders())
                    .as("the other headers stay beside the attributes")
                    .containsKeys("traceparent", "aggregate-type", "cloudEvents_id")
                    .doesNotContainKeys("event-id", "event-type", "content-type");
        }
    }

    /** Reads a binary-mode AMQP message as the binding defines it; fails when a required attribute is missing. */
    static CloudEvent read(AMQP.BasicProperties props, byte[] body) {
        Map<String, Object> headers = props.getHeaders();
        Object version = headers.get("cloudEvents_specversion");
        if (version == null) {
            version = headers.get("cloudEvents:specversion");
        }
        assertThat(version).as("cloudEvents_specversion").isNotNull();
        return new BaseGenericBinaryMessageReaderImpl<String, Object>(
                SpecVersion.parse(version.toString()), BytesCloudEventData.wrap(body)) {
            @Override
            protected boolean isContentTypeHeader(String key) {
                return key.equals("content_type");
            }

            @Override
            protected boolean isCloudEventsHeader(String key) {
                return key.startsWith("cloudEvents_") || key.startsWith("cloudEvents:");
            }

            @Override
            protected String toCloudEventsKey(String key) {
                return key.substring("cloudEvents_".length());
            }

            @Override
            protected void forEachHeader(BiConsumer<String, Object> fn) {
                headers.forEach(fn);
                fn.accept("content_type", props.getContentType());
            }

            @Override
            protected String toCloudEventsValue(Object value) {
                return value.toString();
            }
        }.toEvent();
    }

    private static ClaimedEvent event(String queue) {
        return ClaimedEvents.claimed("order", "o-1", "order.placed", e -> {
            e.version = 3;
            e.json("{\"total\": 12}");
            e.headers = Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
            e.destination = queue;
        });
    }
}
