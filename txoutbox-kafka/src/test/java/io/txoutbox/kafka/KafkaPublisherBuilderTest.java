package io.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Settings are checked at build(); a contradiction is rejected naming the property and its value. */
class KafkaPublisherBuilderTest {
    private static final String NOWHERE = "127.0.0.1:9";

    static Stream<Arguments> contradictions() {
        return Stream.of(
                Arguments.of("acks", "1"),
                Arguments.of("acks", "0"),
                Arguments.of("enable.idempotence", "false"),
                Arguments.of("max.in.flight.requests.per.connection", "6"),
                Arguments.of("max.in.flight.requests.per.connection", "0"),
                Arguments.of("retries", "0"),
                Arguments.of("transactional.id", "tx-1"),
                Arguments.of("key.serializer", "org.apache.kafka.common.serialization.StringSerializer"),
                Arguments.of("bootstrap.servers", "127.0.0.1:19092"),
                Arguments.of("request.timeout.ms", "3000"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("contradictions")
    void a_contradictory_producer_property_is_rejected_at_build(String property, String value) {
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .requestTimeout(Duration.ofSeconds(5))
                        .producerProperty(property, value)
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining(property)
                .hasMessageContaining(value);
    }

    @Test
    void compatible_properties_are_accepted() {
        try (KafkaPublisher publisher = KafkaPublisher.builder()
                .bootstrapServers(NOWHERE)
                .producerProperties(Map.of(
                        "acks",
                        "all",
                        "enable.idempotence",
                        true,
                        "max.in.flight.requests.per.connection",
                        1,
                        "compression.type",
                        "lz4"))
                .build()) {
            assertThat(publisher.toString()).contains(NOWHERE, "compression.type");
        }
    }

    @Test
    void missing_bootstrap_servers_are_rejected() {
        assertThatThrownBy(() -> KafkaPublisher.builder().build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("KafkaPublisher.bootstrapServers is missing");
    }

    @Test
    void a_delivery_timeout_shorter_than_the_request_timeout_is_rejected() {
        assertThatThrownBy(() -> KafkaPublisher.builder()
                        .bootstrapServers(NOWHERE)
                        .requestTimeout(Duration.ofSeconds(10))
                        .deliveryTimeout(Duration.ofSeconds(5))
                        .build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("deliveryTimeout 5000 ms")
                .hasMessageContaining("requestTimeout 10000 ms");
    }

    @Test
    void a_given_producer_excludes_the_settings_of_an_owned_one() {
        try (KafkaProducer<byte[], byte[]> own = new KafkaProducer<>(
                Map.of("bootstrap.servers", NOWHERE), new ByteArraySerializer(), new ByteArraySerializer())) {
            assertThatThrownBy(() -> KafkaPublisher.builder()
                            .producer(own)
                            .bootstrapServers(NOWHERE)
                            .build())
                    .isInstanceOf(OutboxValidationException.class)
                    .hasMessageContaining("KafkaPublisher.producer is given");
            KafkaPublisher.Builder builder = KafkaPublisher.builder().producer(own);
            try (KafkaPublisher first = builder.build();
                    KafkaPublisher second = builder.build()) {
                assertThat(second.currentProducer())
                        .isSameAs(first.currentProducer())
                        .isSameAs(own);
            }
        }
    }

    @Test
    void to_string_never_shows_property_values() {
        try (KafkaPublisher publisher = KafkaPublisher.builder()
                .bootstrapServers(NOWHERE)
                .producerProperty("security.protocol", "SASL_PLAINTEXT")
                .producerProperty("sasl.mechanism", "PLAIN")
                .producerProperty(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
                                + " password=\"s3cret\";")
                .build()) {
            assertThat(publisher.toString()).contains("sasl.jaas.config").doesNotContain("s3cret");
        }
    }
}
