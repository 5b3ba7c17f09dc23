package io.txoutbox.kafka;

import io.txoutbox.test.transport.Arrivals;
import io.txoutbox.test.transport.PublisherContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every partition of one topic from the earliest offset, directly from the broker, on a thread
 * of its own, and keeps every record (duplicates included) in the order each partition gave them.
 */
final class TopicReader extends Arrivals<ConsumerRecord<byte[], byte[]>> {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread poller;
    private volatile boolean closed;

    TopicReader(String bootstrapServers, String topic) {
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(10))) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        poller = new Thread(this::poll, "topic-reader-" + topic);
        poller.setDaemon(true);
        poller.start();
    }

    private void poll() {
        try {
            while (!closed) {
                consumer.poll(Duration.ofMillis(200)).forEach(this::add);
            }
        } catch (WakeupException e) {
            // close() ends the loop.
        } finally {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(2)));
        }
    }

    @Override
    protected PublisherContract.Message read(ConsumerRecord<byte[], byte[]> r) {
        return new PublisherContract.Message(headers(r), r.value());
    }

    static Map<String, String> headers(ConsumerRecord<byte[], byte[]> r) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : r.headers()) {
            headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        try {
            poller.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
