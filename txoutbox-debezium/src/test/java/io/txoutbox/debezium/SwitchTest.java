package io.txoutbox.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxTable;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.test.RecordingPublisher;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3: relay to change data capture and back, on a live table with producers running, following
 * the procedure of the module's README step by step. Nothing committed is lost in either direction; the
 * overlap publishes some events twice, with the same ids and content, and the test counts them.
 */
class SwitchTest extends EngineTest {

    @Test
    void relay_to_cdc_and_back_loses_nothing_and_the_overlap_repeats_the_same_ids() throws Exception {
        String table = newTable();
        Outbox relayMode = outbox(table, OutboxTable.Columns.DEFAULT, false);
        Outbox cdcMode = outbox(table, OutboxTable.Columns.DEFAULT, true);
        RecordingPublisher broker = new RecordingPublisher();
        Relay relay = relay(relayMode, broker, "before");
        relay.start();

        LiveProducers producers = new LiveProducers(LogicalPostgres.dataSource(), 4, relayMode);
        opened.add(producers);
        producers.phase("1 relay");
        awaitCommitted(producers, 300);

        // Relay -> CDC. 1: the publication, then the slot: every commit from here on is streamed.
        producers.phase("2 relay+cdc");
        DebeziumOutboxConfig config = connect(relayMode, b -> b);
        // 2: the last row the relay must still publish (read after the slot exists).
        long lastRelayRow = LogicalPostgres.queryLong("SELECT coalesce(max(seq), 0) FROM " + table);
        // 3: start the connector.
        Capture capture = capture(config);
        // 4: stop the relay once it has published every row up to that one.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> LogicalPostgres.queryLong("SELECT count(*) FROM " + table
                                + " WHERE status = 'pending' AND seq <= " + lastRelayRow)
                        == 0);
        relay.close();
        // 5: producers move to CDC mode (a rolling deploy: both modes append meanwhile).
        producers.switchTo(cdcMode);
        await().atMost(Duration.ofSeconds(30)).until(producers::switched);
        producers.phase("3 cdc");
        // 6: rows that relay-mode producers left are in the stream once the connector passed this point.
        awaitConnectorPassed(config, LogicalPostgres.queryString("SELECT pg_current_wal_lsn()"), capture);
        long leftovers = deleteLeftovers(table);
        awaitCommitted(producers, producers.committedCount() + 300);

        // CDC -> relay. 1: start the relay.
        producers.phase("4 cdc+relay");
        Relay back = relay(relayMode, broker, "after");
        back.start();
        // 2: producers move to relay mode.
        producers.switchTo(relayMode);
        await().atMost(Duration.ofSeconds(30)).until(producers::switched);
        // 3: once the connector has passed the last CDC-mode commit, stop it and drop the slot.
        awaitConnectorPassed(config, LogicalPostgres.queryString("SELECT pg_current_wal_lsn()"), capture);
        capture.close();
        producers.phase("5 relay");
        awaitCommitted(producers, producers.committedCount() + 300);
        producers.close();
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        LogicalPostgres.queryLong("SELECT count(*) FROM " + table + " WHERE status = 'pending'") == 0);
        back.close();

        Map<OutboxEvent, String> committed = producers.committed();
        Map<UUID, OutboxEvent> byId = new HashMap<>();
        committed.keySet().forEach(e -> byId.put(e.id(), e));
        Set<UUID> viaRelay = broker.publishedIds();
        Map<UUID, Capture.Message> viaConnector = new HashMap<>();
        for (Capture.Message m : capture.messages()) {
            assertThat(viaConnector.put(m.eventId(), m))
                    .as("the connector streams %s once", m.eventId())
                    .isNull();
        }
        Set<UUID> delivered = new HashSet<>(viaRelay);
        delivered.addAll(viaConnector.keySet());

        Map<String, long[]> perPhase = new TreeMap<>();
        committed.forEach((e, phase) -> {
            long[] c = perPhase.computeIfAbsent(phase, p -> new long[3]);
            c[0]++;
            c[1] += delivered.contains(e.id()) ? 0 : 1;
            c[2] += viaRelay.contains(e.id()) && viaConnector.containsKey(e.id()) ? 1 : 0;
        });
        long lostToCdc = lost(perPhase, "1 relay", "2 relay+cdc", "3 cdc");
        long lostBack = lost(perPhase, "3 cdc", "4 cdc+relay", "5 relay");
        long duplicates = viaRelay.stream().filter(viaConnector::containsKey).count();
        System.out.printf(
                "switch: committed %d (rolled back %d), relay published %d, connector streamed %d,"
                        + " relay->CDC lost %d, CDC->relay lost %d, duplicates %d (same ids), leftover rows deleted %d;"
                        + " per phase [committed, lost, duplicates]: %s%n",
                committed.size(),
                producers.rolledBack().size(),
                viaRelay.size(),
                viaConnector.size(),
                lostToCdc,
                lostBack,
                duplicates,
                leftovers,
                perPhase.entrySet().stream()
                        .map(en -> en.getKey() + "=" + java.util.Arrays.toString(en.getValue()))
                        .collect(Collectors.joining(", ")));

        assertThat(lostToCdc).as("lost relay -> CDC").isZero();
        assertThat(lostBack).as("lost CDC -> relay").isZero();
        assertThat(delivered).as("nothing else").isEqualTo(byId.keySet());
        assertThat(delivered)
                .as("nothing of a rolled-back transaction")
                .doesNotContainAnyElementsOf(
                        producers.rolledBack().stream().map(OutboxEvent::id).toList());
        for (ClaimedEvent published : broker.published()) {
            Capture.Message streamed = viaConnector.get(published.id());
            if (streamed != null) {
                assertThat(streamed.value())
                        .as("a duplicate carries the same event")
                        .isEqualTo(published.payload());
                assertThat(streamed.headers().get("event-type")).isEqualTo(published.eventType());
                assertThat(streamed.key()).isEqualTo(published.aggregateId());
            }
        }
        assertThat(perPhase).containsKeys("1 relay", "2 relay+cdc", "3 cdc", "4 cdc+relay", "5 relay");
        assertThat(perPhase.get("3 cdc")[2])
                .as("CDC-mode events reach the connector only")
                .isZero();
    }

    private static long lost(Map<String, long[]> perPhase, String... phases) {
        long lost = 0;
        for (String p : phases) {
            lost += perPhase.getOrDefault(p, new long[3])[1];
        }
        return lost;
    }

    private static Relay relay(Outbox outbox, RecordingPublisher broker, String name) {
        return outbox.relay(broker)
                .name(name)
                .batchSize(200)
                .pollInterval(Duration.ofMillis(200))
                .build();
    }

    private static void awaitCommitted(LiveProducers producers, int atLeast) {
        await().atMost(Duration.ofSeconds(60)).until(() -> producers.committedCount() >= atLeast);
    }

    /** The slot's confirmed position, advanced by the connector's offset commits, has passed {@code lsn}. */
    private static void awaitConnectorPassed(DebeziumOutboxConfig config, String lsn, Capture capture) {
        String slot = config.connectorProperties().get("slot.name");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (capture.failure() != null) {
                        throw new AssertionError("the Debezium engine stopped: " + capture.failure());
                    }
                    return LogicalPostgres.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                                    + slot + "' AND confirmed_flush_lsn >= '" + lsn + "'::pg_lsn")
                            == 1;
                });
    }

    /** Relay-mode rows left once every producer appends in CDC mode: streamed already, so deleted. */
    private static long deleteLeftovers(String table) {
        long n = LogicalPostgres.queryLong("SELECT count(*) FROM " + table + " WHERE status = 'pending'");
        LogicalPostgres.execute("DELETE FROM " + table + " WHERE status = 'pending'");
        return n;
    }
}
