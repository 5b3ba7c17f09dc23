package io.txoutbox.webhook;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static io.txoutbox.webhook.WebhookPublisherTest.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.SettableClock;
import io.txoutbox.webhook.TestReceiver.Response;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real relay on a real outbox (local PostgreSQL) publishing through webhooks: what lands in the table. */
class WebhookRelayTest {
    private final SettableClock clock = new SettableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    private HikariDataSource dataSource;
    private TestReceiver receiver;
    private String table;

    @BeforeEach
    void start() throws Exception {
        dataSource = LocalPostgres.pool("webhook-relay", 3);
        table = "webhook_relay_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        receiver = new TestReceiver(
                WebhookVerifier.builder().secret(SECRET).clock(clock).build());
    }

    @AfterEach
    void stop() throws Exception {
        receiver.close();
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table + " CASCADE");
            st.execute("DROP FUNCTION IF EXISTS " + table + "_notify() CASCADE");
        }
        dataSource.close();
    }

    @Test
    void published_dead_and_retry_after_land_in_the_outbox_as_the_receiver_answered() throws Exception {
        receiver.respond(r -> switch (r.headers().get("event-type")) {
            case "order.placed" -> Response.of(r.verified() ? 204 : 401);
            case "order.cancelled" -> Response.of(410);
            default -> Response.of(503).with("Retry-After", "3600");
        });
        Outbox outbox = Outbox.builder(dataSource)
                .table(table)
                .createSchemaIfMissing(true)
                .clock(clock)
                .build();
        outbox.inTransaction(c -> {
            for (String type : new String[] {"order.placed", "order.cancelled", "order.delayed"}) {
                outbox.append(
                        c,
                        OutboxEvent.builder(type)
                                .aggregate("order", "o-1")
                                .jsonPayload("{\"type\":\"" + type + "\"}")
                                .build());
            }
            return null;
        });
        try (WebhookPublisher publisher = WebhookPublisher.builder()
                        .endpoint(WebhookEndpoint.of(receiver.url("/hooks"), SECRET))
                        .allowPrivateNetworks(true)
                        .clock(clock)
                        .build();
                Relay relay = outbox.relay(publisher).listen(false).build()) {
            relay.runOnce();
        }

        assertThat(receiver.accepted()).hasSize(1);
        assertThat(receiver.accepted().get(0).verified()).isTrue();
        assertThatOutbox(outbox)
                .hasPending(1) // the retrying one
                .hasInFlight(0)
                .hasDead(1)
                .hasRetrying(1)
                .hasDeadEventWithReasonContaining("HTTP 410 from 127.0.0.1:" + receiver.port() + "/hooks");
        assertThat(availableAt("order.delayed")).isEqualTo(clock.instant().plusSeconds(3600));
    }

    private Instant availableAt(String eventType) throws Exception {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT available_at FROM " + table + " WHERE event_type = ?")) {
            ps.setString(1, eventType);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getTimestamp(1).toInstant();
            }
        }
    }
}
