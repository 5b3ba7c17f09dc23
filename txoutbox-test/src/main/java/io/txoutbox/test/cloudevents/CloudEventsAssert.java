package io.txoutbox.test.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.txoutbox.spi.ClaimedEvent;
import java.net.URI;
import java.time.ZoneOffset;

/** Asserts that a CloudEvent, read back from a broker, carries the outbox event it was mapped from. */
public final class CloudEventsAssert {
    private CloudEventsAssert() {}

    /**
     * Asserts the attributes every binding carries alike: spec version 1.0, {@code id} = the event id,
     * {@code type} = the event type, {@code source}, {@code subject} = the aggregate id, {@code time} =
     * when the event was appended, {@code datacontenttype} = its content type. The {@code eventversion}
     * extension (a string in binary mode, a number in structured mode) and the data are the caller's to
     * check.
     *
     * @param ce the CloudEvent as the consumer read it
     * @param event the outbox event it was published from
     * @param source the mapping's source
     * @throws AssertionError naming the first attribute that differs
     */
    public static void assertMapped(CloudEvent ce, ClaimedEvent event, URI source) {
        assertThat(ce.getSpecVersion()).as("specversion").isEqualTo(SpecVersion.V1);
        assertThat(ce.getId()).as("id").isEqualTo(event.id().toString());
        assertThat(ce.getType()).as("type").isEqualTo(event.eventType());
        assertThat(ce.getSource()).as("source").isEqualTo(source);
        assertThat(ce.getSubject()).as("subject").isEqualTo(event.aggregateId());
        assertThat(ce.getTime()).as("time").isEqualTo(event.createdAt().atOffset(ZoneOffset.UTC));
        assertThat(ce.getDataContentType()).as("datacontenttype").isEqualTo(event.contentType());
    }
}
