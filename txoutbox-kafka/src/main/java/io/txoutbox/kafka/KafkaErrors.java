package io.txoutbox.kafka;

import io.txoutbox.spi.PublishOutcome;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Turns a Kafka failure into an outcome. Dead only for what can never succeed as it is (too large, an
 * invalid topic, refused by authorization, a record the broker rejects); retry for everything
 * transient, timed out or unknown, because a retry loses nothing and a wrong dead does.
 */
final class KafkaErrors {
    private KafkaErrors() {}

    /**
     * How one send failed.
     *
     * @param outcome what to report for the event
     * @param fatal the producer itself is broken (fenced, out of sequence, closed, not authenticated):
     *     the rest of the batch retries and an owned producer is recreated
     */
    record Failure(PublishOutcome outcome, boolean fatal) {}

    static Failure classify(Throwable error, String topic, int bytes) {
        Throwable root = unwrap(error);
        String where = " (topic '" + topic + "', " + bytes + " bytes)";
        String what = describe(root);
        if (root instanceof RecordTooLargeException || root instanceof RecordBatchTooLargeException) {
            return new Failure(PublishOutcome.dead("record too large for Kafka" + where + ": " + what), false);
        }
        if (root instanceof ClusterAuthorizationException) {
            // Dead as asked for authorization errors, and the idempotent producer is unusable after it.
            return new Failure(PublishOutcome.dead("not authorized by Kafka" + where + ": " + what), true);
        }
        if (root instanceof AuthorizationException) {
            return new Failure(PublishOutcome.dead("not authorized by Kafka" + where + ": " + what), false);
        }
        if (isFatal(root)) {
            return new Failure(PublishOutcome.retry("Kafka producer failed" + where + ": " + what), true);
        }
        if (root instanceof InvalidTopicException) {
            return new Failure(PublishOutcome.dead("invalid Kafka topic" + where + ": " + what), false);
        }
        if (root instanceof SerializationException || root instanceof InvalidRecordException) {
            return new Failure(PublishOutcome.dead("Kafka rejected the record" + where + ": " + what), false);
        }
        if (root instanceof TimeoutException
                || root instanceof RetriableException
                || root instanceof UnknownServerException
                || root instanceof InterruptException) {
            return new Failure(PublishOutcome.retry("Kafka send failed" + where + ": " + what), false);
        }
        if (root instanceof ApiException) {
            return new Failure(PublishOutcome.dead("Kafka refused the record" + where + ": " + what), false);
        }
        return new Failure(PublishOutcome.retry("Kafka send failed" + where + ": " + what), false);
    }

    /** Failures after which this producer instance can send nothing more. */
    private static boolean isFatal(Throwable e) {
        return e instanceof ProducerFencedException
                || e instanceof OutOfOrderSequenceException // includes UnknownProducerIdException
                || e instanceof InvalidProducerEpochException
                || e instanceof AuthenticationException
                || e instanceof UnsupportedVersionException
                || e instanceof IllegalStateException // "Cannot perform operation after producer has been closed"
                || (e instanceof KafkaException
                        && !(e instanceof ApiException)
                        && !(e instanceof SerializationException));
    }

    /** A plain {@code KafkaException} that wraps a Kafka error (the producer's error state) counts as that error. */
    private static Throwable unwrap(Throwable e) {
        Throwable current = e;
        while (current.getClass() == KafkaException.class && current.getCause() instanceof KafkaException cause) {
            current = cause;
        }
        return current;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
