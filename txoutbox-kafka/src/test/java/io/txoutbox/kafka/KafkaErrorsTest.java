package io.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.spi.Outcome;
import java.util.stream.Stream;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The classification is pure logic: every class of Kafka error maps to one outcome. */
class KafkaErrorsTest {

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of(new RecordTooLargeException("big"), Outcome.DEAD, false),
                Arguments.of(new InvalidTopicException("bad"), Outcome.DEAD, false),
                Arguments.of(new SerializationException("bad"), Outcome.DEAD, false),
                Arguments.of(new TopicAuthorizationException("no"), Outcome.DEAD, false),
                Arguments.of(new ClusterAuthorizationException("no"), Outcome.DEAD, true),
                Arguments.of(new PolicyViolationException("no"), Outcome.DEAD, false),
                Arguments.of(new TimeoutException("slow"), Outcome.RETRY, false),
                Arguments.of(new NetworkException("down"), Outcome.RETRY, false),
                Arguments.of(new NotEnoughReplicasException("few"), Outcome.RETRY, false),
                Arguments.of(new CorruptRecordException("crc"), Outcome.RETRY, false),
                Arguments.of(new UnknownServerException("?"), Outcome.RETRY, false),
                Arguments.of(new ProducerFencedException("fenced"), Outcome.RETRY, true),
                Arguments.of(new OutOfOrderSequenceException("gap"), Outcome.RETRY, true),
                Arguments.of(new SaslAuthenticationException("who"), Outcome.RETRY, true),
                Arguments.of(new IllegalStateException("closed"), Outcome.RETRY, true),
                Arguments.of(new KafkaException("closed forcefully"), Outcome.RETRY, true),
                Arguments.of(new KafkaException("error state", new ProducerFencedException("f")), Outcome.RETRY, true),
                Arguments.of(new KafkaException("wrapped", new RecordTooLargeException("big")), Outcome.DEAD, false),
                Arguments.of(new RuntimeException("unknown"), Outcome.RETRY, false));
    }

    @ParameterizedTest(name = "{0} -> {1}, fatal={2}")
    @MethodSource("errors")
    void each_kafka_error_maps_to_one_outcome(Throwable error, Outcome outcome, boolean fatal) {
        KafkaErrors.Failure failure = KafkaErrors.classify(error, "orders", 12);
        assertThat(failure.outcome().outcome()).isEqualTo(outcome);
        assertThat(failure.fatal()).isEqualTo(fatal);
        assertThat(failure.outcome().reason()).contains("'orders'", "12 bytes");
    }
}
