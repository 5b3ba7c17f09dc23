package io.txoutbox.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The plain Kafka producer, as the raw-SQL relay and the peer use it: idempotent, {@code acks=all},
 * keyed by aggregate id, the event id in a header. A batch is confirmed when every send's future is.
 */
final class KafkaSink implements Sink {
    private final Producer<byte[], byte[]> producer;
    private final String topic;

    KafkaSink(String bootstrapServers, String topic, int lingerMs) {
        this.topic = topic;
        this.producer = new KafkaProducer<>(
                producerConfig(bootstrapServers, lingerMs), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The producer settings every variant shares (txoutbox's publisher gets the same ones). */
    static Map<String, Object> producerConfig(String bootstrapServers, int lingerMs) {
        return Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.LINGER_MS_CONFIG,
                lingerMs,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024);
    }

    @Override
    public void send(List<Event> batch) throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>(batch.size());
        for (Event e : batch) {
            ProducerRecord<byte[], byte[]> record =
                    new ProducerRecord<>(topic, e.aggregateId().getBytes(StandardCharsets.UTF_8), e.payload());
            record.headers().add("event-id", e.id().toString().getBytes(StandardCharsets.UTF_8));
            sent.add(producer.send(record));
        }
        for (Future<RecordMetadata> f : sent) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
