package io.txoutbox.server;

import io.txoutbox.harness.kafka.SharedKafka;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** How the server tests read back what a Kafka route published on the shared broker. */
public final class KafkaReads {
    private KafkaReads() {}

    /**
     * @param partition the partition to read, on {@link SharedKafka#broker()}
     * @param group the consumer group, which commits nothing
     * @return a consumer of raw bytes, assigned the partition and placed at its first record
     */
    public static KafkaConsumer<byte[], byte[]> fromBeginning(TopicPartition partition, String group) {
        Map<String, Object> c = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedKafka.broker().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false);
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        return consumer;
    }
}
