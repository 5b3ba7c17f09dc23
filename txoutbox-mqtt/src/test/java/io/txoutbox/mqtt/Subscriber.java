package io.txoutbox.mqtt;

import io.txoutbox.test.transport.PublisherContract.Message;
import io.txoutbox.test.transport.PublisherContract.Received;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * A second Paho client, connected straight to the local Mosquitto (never through a proxy), subscribed at
 * QoS 1 before anything is published; it decodes each arrival as an envelope, or keeps the raw bytes.
 */
final class Subscriber implements Received {
    static final String BROKER = "tcp://127.0.0.1:1883";

    private final MqttClient client;
    private final List<Message> messages = new CopyOnWriteArrayList<>();
    private final List<byte[]> raw = new CopyOnWriteArrayList<>();

    Subscriber(String topic) throws MqttException {
        client = new MqttClient(
                BROKER, "txoutbox-test-sub-" + UUID.randomUUID().toString().substring(0, 8), new MemoryPersistence());
        MqttConnectOptions options = new MqttConnectOptions();
        options.setCleanSession(true);
        options.setMaxInflight(1_000);
        client.connect(options);
        client.subscribe(topic, 1, (t, m) -> {
            raw.add(m.getPayload());
            try {
                MqttEnvelope envelope = MqttEnvelope.decode(m.getPayload());
                messages.add(new Message(envelope.headers(), envelope.payload()));
            } catch (IllegalArgumentException notAnEnvelope) {
                // A raw-format message: only raw() sees it.
            }
        });
    }

    @Override
    public List<Message> messages() {
        return List.copyOf(messages);
    }

    /** @return every arrival's bytes as they came */
    List<byte[]> raw() {
        return List.copyOf(raw);
    }

    @Override
    public void close() {
        try {
            client.disconnect(1_000);
        } catch (MqttException ignored) {
            // Closing below either way.
        }
        try {
            client.close(true);
        } catch (MqttException ignored) {
            // Nothing left to release.
        }
    }
}
