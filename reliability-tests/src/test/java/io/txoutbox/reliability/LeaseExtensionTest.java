package io.txoutbox.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.harness.SlowBroker;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch still legitimately in flight keeps its lease. A trigger makes PostgreSQL's claim slow (1.5 s
 * per claimed row, as a loaded database might be), and PostgreSQL stamps the lease from the start of the
 * claim's transaction: so the lease ends 1.5 s after the claim returns, while the batch still has its
 * whole publish timeout (2 s from the call). The relay extends the lease, fenced by owner, on the
 * database clock, and a second relay never takes the batch over: one publish per event.
 */
class LeaseExtensionTest extends OutboxTableTest {
    private String function;

    @AfterEach
    void dropFunction() {
        if (function != null) {
            execute("DROP FUNCTION IF EXISTS " + function + "() CASCADE");
        }
    }

    @Test
    void a_batch_whose_lease_would_end_within_its_publish_timeout_keeps_it_and_is_published_once() {
        Outbox outbox = outboxBuilder().build();
        function = outbox.table() + "_slow";
        execute("CREATE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF NEW.attempts > OLD.attempts THEN PERFORM pg_sleep(1.5); END IF;"
                + " RETURN NEW; END $$");
        execute("CREATE TRIGGER " + function + " BEFORE UPDATE ON " + outbox.table() + " FOR EACH ROW EXECUTE FUNCTION "
                + function + "()");
        UUID id = appendCommitted(outbox, List.of(event("o-1"))).get(0).id();

        SlowBroker broker = new SlowBroker();
        CountDownLatch called = new CountDownLatch(1);
        // Confirms 1.8 s after the call: within the 2 s publish timeout, past the lease the claim left.
        Publisher confirmsIn1800Ms = batch -> {
            called.countDown();
            return broker.confirmAfter(batch, Duration.ofMillis(1_800));
        };
        Relay.Builder relays = outbox.relay(confirmsIn1800Ms)
                .leaseDuration(Duration.ofSeconds(3))
                .publishTimeout(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(100))
                .listen(false);
        try (Relay first = relays.name("first").build();
                Relay second = relays.name("second").build()) {
            first.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> called.getCount() == 0);
            second.start();
            // A takeover would hold the row until it had published it, so once the row is gone every
            // publish of it has been counted.
            await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM " + outbox.table()) == 0);
        } finally {
            broker.close();
        }
        Map<UUID, Integer> published = broker.deliveries();
        assertThat(published).containsOnlyKeys(id);
        assertThat(published.get(id)).as("publishes").isEqualTo(1);
    }
}
