package io.txoutbox.kafka;

import io.cloudevents.kafka.KafkaMessageFactory;
import io.txoutbox.cloudevents.CloudEventsMapping;
import io.txoutbox.spi.ClaimedEvent;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Records in the CloudEvents Kafka binding's binary content mode, written by the SDK's own Kafka writer:
 * the attributes as {@code ce_} headers, {@code datacontenttype} as {@code content-type}, the payload as
 * the value; then the headers that are not attributes, as they always are. Loaded only when {@link
 * KafkaPublisher.Builder#cloudEvents} is set, so the SDK stays optional.
 */
final class CloudEventsRecords implements KafkaPublisher.RecordMapping {
    private final CloudEventsMapping mapping;

    CloudEventsRecords(CloudEventsMapping mapping) {
        this.mapping = mapping;
    }

    @Override
    public ProducerRecord<byte[], byte[]> record(ClaimedEvent event, String topic) {
        byte[] key = event.aggregateId().getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> record =
                KafkaMessageFactory.createWriter(topic, key).writeBinary(mapping.toCloudEvent(event));
        for (Map.Entry<String, String> h : mapping.otherHeaders(event).entrySet()) {
            record.headers().add(h.getKey(), h.getValue().getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }
}
