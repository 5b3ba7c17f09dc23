package io.txoutbox.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** A private NATS server with JetStream ({@link PrivateNats}) and one stream over the run's subjects. */
final class NatsChaosBroker implements ChaosBroker {
    private final String stream;
    private final String subjects;
    private final String subjectPrefix;
    private final PrivateNats nats;

    NatsChaosBroker(String runId) {
        this.stream = runId.toUpperCase();
        this.subjectPrefix = runId + ".";
        this.subjects = runId + ".>";
        try {
            this.nats = new PrivateNats();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void start() throws Exception {
        nats.start();
        JetStreamOracle.createStream(nats.url(), stream, subjects);
    }

    @Override
    public int port() {
        return nats.port();
    }

    @Override
    public List<String> relayTarget(String proxyHost, int proxyPort) {
        return List.of("nats", "nats://" + proxyHost + ":" + proxyPort, subjectPrefix);
    }

    @Override
    public void stopBroker() {
        nats.stop();
    }

    @Override
    public void startBroker() {
        nats.start();
    }

    @Override
    public List<Arrival> readAll() throws Exception {
        return JetStreamOracle.readAll(nats.url(), stream, subjects);
    }

    @Override
    public void close() {
        JetStreamOracle.deleteStream(nats.url(), stream);
        nats.close();
    }
}
