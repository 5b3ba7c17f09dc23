package io.txoutbox.nats;

import static io.txoutbox.test.cloudevents.CloudEventsAssert.assertMapped;
import static io.txoutbox.test.transport.Publishing.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.impl.Headers;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.harness.TestEnv;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.Outcome;
import io.txoutbox.spi.PublishOutcome;
import io.txoutbox.test.transport.ClaimedEvents;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The opt-in CloudEvents format against the local NATS JetStream: the stored message is read back and
 * parsed by the CloudEvents SDK's generic binary reader, told only what the NATS binding says ({@code
 * ce-} headers for every attribute, percent-decoded values).
 */
class NatsCloudEventsTest {
    private static final String URL = "nats://" + TestEnv.get("TXOUTBOX_NATS_HOST", "127.0.0.1") + ":"
            + TestEnv.get("TXOUTBOX_NATS_PORT", "4222");

    @Test
    void messages_arrive_as_binary_mode_cloudevents_of_the_nats_binding() throws Exception {
        String id = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        String subject = "txoutbox.ce." + id;
        String stream = "txoutbox-ce-" + id;
        ClaimedEvent event = event(subject, "order 7 \u20AC");
        try (Connection admin = Nats.connect(URL)) {
            JetStreamManagement jsm = admin.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(stream)
                    .subjects(subject)
                    .storageType(StorageType.Memory)
                    .build());
            try {
                try (NatsPublisher publisher = NatsPublisher.builder()
                        .server(URL)
                        .cloudEvents(CloudEventsMapping.source("https://orders.example.com/outbox"))
                        .build()) {
                    assertThat(publish(publisher, List.of(event), Duration.ofSeconds(30)))
                            .extracting(PublishOutcome::outcome)
                            .containsExactly(Outcome.PUBLISHED);
                }
                MessageInfo stored = jsm.getLastMessage(stream, subject);

                CloudEvent ce = read(stored.getHeaders(), stored.getData());
                assertMapped(ce, event, URI.create("https://orders.example.com/outbox"));
                assertThat(ce.getExtension(CloudEventsMapping.VERSION_EXTENSION))
                        .isEqualTo("5");
                assertThat(ce.getData().toBytes()).isEqualTo(event.payload());

                Headers headers = stored.getHeaders();
                assertThat(headers.getFirst("ce-subject")).isEqualTo("order%207%20%E2%82%AC");
                assertThat(headers.getFirst("Nats-Msg-Id")).isEqualTo(event.id().toString());
                assertThat(headers.getFirst("traceparent")).isEqualTo(event.traceparent());
                assertThat(headers.getFirst("event-id")).isNull();
            } finally {
                jsm.deleteStream(stream);
            }
        }
    }

    /** Reads a binary-mode NATS message as the binding defines it; fails when the spec version is missing. */
    static CloudEvent read(Headers headers, byte[] body) {
        String version = headers.getFirst("ce-specversion");
        assertThat(version).as("ce-specversion").isNotNull();
        return new BaseGenericBinaryMessageReaderImpl<String, String>(
                SpecVersion.parse(version), BytesCloudEventData.wrap(body)) {
            @Override
            protected boolean isContentTypeHeader(String key) {
                return false; // datacontenttype is ce-datacontenttype in this binding
            }

            @Override
            protected boolean isCloudEventsHeader(String key) {
                return key.regionMatches(true, 0, "ce-", 0, 3);
            }

            @Override
            protected String toCloudEventsKey(String key) {
                return key.substring(3).toLowerCase();
            }

            @Override
            protected void forEachHeader(BiConsumer<String, String> fn) {
                headers.forEach((key, values) -> fn.accept(key, values.get(0)));
            }

            @Override
            protected String toCloudEventsValue(String value) {
                return percentDecode(value);
            }
        }.toEvent();
    }

    private static String percentDecode(String value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%') {
                out.write(Integer.parseInt(value.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static ClaimedEvent event(String subject, String aggregateId) {
        return ClaimedEvents.claimed("order", aggregateId, "order.placed", e -> {
            e.version = 5;
            e.json("{\"total\": 12}");
            e.headers = Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
            e.destination = subject;
        });
    }
}
