package io.txoutbox.mqtt;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.paho.client.mqttv3.IMqttActionListener;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.IMqttToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher's own Paho client and its connection. Connects when the publisher is built, and again for the next batch after
 * the connection was lost or a connect failed: Paho's automatic reconnect is off, so that a batch never
 * waits on a reconnect loop it cannot see, and a message is never queued while disconnected.
 */
final class MqttSession implements MqttCallback {
    private static final Logger log = LoggerFactory.getLogger(MqttSession.class);
    private static final long DISCONNECT_QUIESCE_MS = 500;
    private static final long DISCONNECT_WAIT_MS = 2_000;

    private final MqttAsyncClient client;
    private final MqttConnectOptions options;
    private final int qos;
    private final String target;
    private final ReentrantLock lock = new ReentrantLock();
    private CompletableFuture<Void> connecting;
    private boolean closed;

    MqttSession(MqttAsyncClient client, MqttConnectOptions options, int qos, String target) {
        this.client = client;
        this.options = options;
        this.qos = qos;
        this.target = target;
        client.setCallback(this);
    }

    /**
     * @return a stage that completes once connected: at once if already connected, else when the connect
     *     in progress (shared by concurrent batches) ends
     * @throws IllegalStateException when closed
     */
    CompletableFuture<Void> connected() {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("MqttPublisher is closed");
            }
            if (client.isConnected()) {
                return CompletableFuture.completedFuture(null);
            }
            if (connecting != null && !connecting.isDone()) {
                return connecting;
            }
            CompletableFuture<Void> attempt = new CompletableFuture<>();
            connecting = attempt;
            try {
                client.connect(options, null, new IMqttActionListener() {
                    @Override
                    public void onSuccess(IMqttToken token) {
                        log.info("txoutbox: connected to MQTT broker {}", target);
                        attempt.complete(null);
                    }

                    @Override
                    public void onFailure(IMqttToken token, Throwable error) {
                        log.debug("connecting to {} failed: {}", target, String.valueOf(error));
                        attempt.completeExceptionally(error);
                    }
                });
            } catch (MqttException e) {
                if (e.getReasonCode() == MqttException.REASON_CODE_CLIENT_CONNECTED) {
                    attempt.complete(null);
                } else {
                    attempt.completeExceptionally(e);
                }
            }
            return attempt;
        } finally {
            lock.unlock();
        }
    }

    /** Sends one message; its ack completes on the broker's acknowledgement (PUBACK, or PUBCOMP for QoS 2). */
    void send(Delivery delivery, DeliveryWindow window) throws MqttException {
        client.publish(delivery.topic, delivery.message, qos, false, null, new IMqttActionListener() {
            @Override
            public void onSuccess(IMqttToken token) {
                delivery.ack.complete(null);
                window.release(delivery);
            }

            @Override
            public void onFailure(IMqttToken token, Throwable error) {
                delivery.ack.completeExceptionally(error);
                window.release(delivery);
            }
        });
    }

    /** @return whether the client is connected now */
    boolean isConnected() {
        return client.isConnected();
    }

    /** @return where the client connects, without credentials */
    String target() {
        return target;
    }

    @Override
    public void connectionLost(Throwable cause) {
        log.warn(
                "txoutbox: lost the connection to MQTT broker {}: {}; the next batch reconnects",
                target,
                String.valueOf(cause));
    }

    @Override
    public void messageArrived(String topic, MqttMessage message) {
        // The publisher subscribes to nothing.
    }

    @Override
    public void deliveryComplete(IMqttDeliveryToken token) {
        // Each message's own listener reports it.
    }

    /** Disconnects (bounded) and closes the client. Idempotent. */
    void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        try {
            if (client.isConnected()) {
                client.disconnect(DISCONNECT_QUIESCE_MS).waitForCompletion(DISCONNECT_WAIT_MS);
            }
        } catch (MqttException e) {
            try {
                client.disconnectForcibly(0, DISCONNECT_WAIT_MS);
            } catch (MqttException ignored) {
                // Closing below, forcibly, releases what is left.
            }
        }
        try {
            client.close(true);
        } catch (MqttException e) {
            log.warn("txoutbox: closing the MQTT client for {} failed: {}", target, e.toString());
        }
    }
}
