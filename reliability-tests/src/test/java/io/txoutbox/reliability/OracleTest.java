package io.txoutbox.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txoutbox.reliability.ChaosBroker.Arrival;
import io.txoutbox.reliability.Ledger.Appended;
import io.txoutbox.reliability.Ledger.TxOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The oracle itself: it must see every kind of violation it claims to check. */
class OracleTest {

    @Test
    void the_oracle_counts_lost_invented_rolled_back_duplicates_payload_changes_and_order_violations() {
        Ledger ledger = new Ledger();
        Appended a0 = appended("a", 0);
        Appended a1 = appended("a", 1);
        Appended lost = appended("b", 0);
        Appended rolledBack = appended("c", 0);
        Appended unknownPublished = appended("d", 0);
        Appended unknownMissing = appended("d", 1);
        ledger.record(List.of(a0, a1, lost), TxOutcome.COMMITTED);
        ledger.record(List.of(rolledBack), TxOutcome.ROLLED_BACK);
        ledger.record(List.of(unknownPublished, unknownMissing), TxOutcome.UNKNOWN);
        List<Arrival> arrivals = new ArrayList<>();
        arrivals.add(arrival(a1, a1.payload()));
        arrivals.add(arrival(a0, a0.payload()));
        arrivals.add(arrival(a0, "{\"changed\":true}"));
        arrivals.add(arrival(rolledBack, rolledBack.payload()));
        arrivals.add(arrival(unknownPublished, unknownPublished.payload()));
        arrivals.add(new Arrival(UUID.randomUUID(), "{}", arrivals.size() + 1));

        ChaosConfig config = ChaosConfig.boundedOrdered(1);
        ChaosRun.Result r = new ChaosRun(config).check(ledger, arrivals, 0, 0, 0);

        assertThat(r.lost()).as("lost").isEqualTo(1);
        assertThat(r.invented()).as("rolled back + never appended").isEqualTo(2);
        assertThat(r.rolledBackPublished()).isEqualTo(1);
        assertThat(r.duplicates()).isEqualTo(1);
        assertThat(r.payloadMismatches()).isEqualTo(1);
        assertThat(r.orderViolations()).as("a#0 first arrived after a#1").isEqualTo(1);
        assertThat(r.bound()).as("no faults, no duplicates allowed").isZero();
    }

    private static Appended appended(String aggregate, long seq) {
        return new Appended(UUID.randomUUID(), aggregate, seq, "{\"a\":\"" + aggregate + "\",\"s\":" + seq + "}");
    }

    private static Arrival arrival(Appended e, String payload) {
        return new Arrival(e.id(), payload, 0);
    }
}
