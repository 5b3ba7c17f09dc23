package io.txoutbox.reliability;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.Headers;
import io.txoutbox.reliability.ChaosBroker.Arrival;
import io.txoutbox.spi.MessageHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The oracle's view of the broker: creates the stream the relays publish to, and reads back every
 * message it holds, in stream order, duplicates included.
 *
 * <p>The stream's duplicate window is 100 ms, the least JetStream accepts, on purpose: with its
 * default (two minutes) the broker drops re-publishes by {@code Nats-Msg-Id} and the oracle could not
 * see how many the relays make. Every re-publish comes at least a lease or a publish timeout after the
 * first copy, far outside 100 ms, so here every copy the relays deliver is stored and counted.
 */
final class JetStreamOracle {
    private JetStreamOracle() {}

    static void createStream(String url, String stream, String subjects) throws Exception {
        try (Connection nc = Nats.connect(url)) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(stream)
                    .subjects(subjects)
                    .storageType(StorageType.File)
                    .duplicateWindow(Duration.ofMillis(100))
                    .build());
        }
    }

    /** @return every message of the stream, in stream order */
    static List<Arrival> readAll(String url, String stream, String subjects) throws Exception {
        try (Connection nc = Nats.connect(url)) {
            JetStreamManagement jsm = nc.jetStreamManagement();
            StreamInfo info = jsm.getStreamInfo(stream);
            long total = info.getStreamState().getMsgCount();
            JetStream js = nc.jetStream();
            JetStreamSubscription sub = js.subscribe(
                    subjects,
                    PushSubscribeOptions.builder().stream(stream).ordered(true).build());
            List<Arrival> arrivals = new ArrayList<>((int) total);
            while (arrivals.size() < total) {
                Message m = sub.nextMessage(Duration.ofSeconds(10));
                if (m == null) {
                    throw new IllegalStateException("the stream " + stream + " holds " + total + " messages but only "
                            + arrivals.size() + " could be read");
                }
                Headers headers = m.getHeaders();
                String id = headers == null ? null : headers.getFirst(MessageHeaders.EVENT_ID);
                arrivals.add(Arrival.of(id, m.getData(), m.metaData().streamSequence()));
            }
            sub.unsubscribe();
            return arrivals;
        }
    }

    static void deleteStream(String url, String stream) {
        try (Connection nc = Nats.connect(url)) {
            nc.jetStreamManagement().deleteStream(stream);
        } catch (Exception e) {
            // The private server's store directory is deleted with it anyway.
        }
    }
}
