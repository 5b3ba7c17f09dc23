package io.txoutbox.reliability;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the producers know about every transaction they ran, as Kafka's transaction system tests keep
 * it: each appended event with the outcome of its transaction. A transaction is committed when
 * {@code commit()} returned, rolled back when it was rolled back or failed before {@code commit()}
 * was called, and unknown when {@code commit()} itself threw: it may or may not have committed.
 */
final class Ledger {
    enum TxOutcome {
        COMMITTED,
        ROLLED_BACK,
        UNKNOWN
    }

    /**
     * One appended event.
     *
     * @param id the event id
     * @param aggregateId its aggregate
     * @param aggregateSeq its place among the aggregate's events, in append order
     * @param payload the payload text
     */
    record Appended(UUID id, String aggregateId, long aggregateSeq, String payload) {}

    private final Map<UUID, Appended> events = new ConcurrentHashMap<>();
    private final Map<UUID, TxOutcome> outcomes = new ConcurrentHashMap<>();

    void record(List<Appended> transaction, TxOutcome outcome) {
        for (Appended e : transaction) {
            events.put(e.id(), e);
            outcomes.put(e.id(), outcome);
        }
    }

    Appended event(UUID id) {
        return events.get(id);
    }

    TxOutcome outcome(UUID id) {
        return outcomes.get(id);
    }

    Set<UUID> ids(TxOutcome outcome) {
        Set<UUID> ids = new HashSet<>();
        outcomes.forEach((id, o) -> {
            if (o == outcome) {
                ids.add(id);
            }
        });
        return ids;
    }

    long count(TxOutcome outcome) {
        return outcomes.values().stream().filter(o -> o == outcome).count();
    }
}
