package io.txoutbox.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The bounded chaos runs of the normal suite, with fixed seeds: relays in separate JVMs killed,
 * frozen past their lease, cut off from a private NATS server (which is also stopped and started) and
 * from PostgreSQL, while producers append with rollbacks and commit delays; and two short runs with the
 * same faults and oracle through SQS (ElasticMQ) and JMS (Artemis). Nothing committed is lost,
 * nothing is invented, and duplicates stay within the bound that {@link ChaosRun} defines.
 */
class ChaosTest {

    @Test
    void relays_killed_frozen_and_cut_off_lose_nothing_invent_nothing_and_duplicate_within_the_bound()
            throws Exception {
        assumeTrue(PrivateNats.available(), "nats-server is not installed at " + PrivateNats.BINARY);
        ChaosRun.Result r = new ChaosRun(ChaosConfig.bounded(20261130L)).run();
        System.out.println(r.summary());
        assertGuarantees(r);
        assertThat(r.committed()).as("events").isGreaterThanOrEqualTo(50_000);
        assertThat(r.kills()).as("kills").isGreaterThanOrEqualTo(20);
        assertThat(r.stops()).as("stops").isGreaterThanOrEqualTo(1);
        assertThat(r.brokerFaults()).as("broker outages").isGreaterThanOrEqualTo(1);
        assertThat(r.relayBackendsTerminated()).as("terminated relay backends").isGreaterThanOrEqualTo(1);
    }

    @Test
    void ordered_relays_under_the_same_faults_deliver_every_aggregate_in_append_order() throws Exception {
        assumeTrue(PrivateNats.available(), "nats-server is not installed at " + PrivateNats.BINARY);
        ChaosRun.Result r = new ChaosRun(ChaosConfig.boundedOrdered(20261201L)).run();
        System.out.println(r.summary());
        assertGuarantees(r);
        assertThat(r.orderViolations())
                .as("aggregates whose first arrivals left append order")
                .isZero();
    }

    @Test
    void relays_publishing_to_sqs_killed_frozen_and_cut_off_lose_nothing_invent_nothing_and_duplicate_within_the_bound()
            throws Exception {
        assertShortRunVia(ChaosConfig.Transport.SQS, 20261202L, 3, "cuts, blackhole and delay");
    }

    @Test
    void relays_publishing_to_jms_killed_frozen_cut_off_and_through_a_broker_restart_lose_nothing_and_invent_nothing()
            throws Exception {
        assertShortRunVia(ChaosConfig.Transport.JMS, 20261203L, 4, "restart, cut, blackhole and delay");
    }

    /**
     * Runs {@link ChaosConfig#boundedVia} and asserts the guarantees, and that every planned fault was carried
     * out: the four kills and the broker faults, named by {@code faults}.
     */
    private static void assertShortRunVia(ChaosConfig.Transport transport, long seed, int brokerFaults, String faults)
            throws Exception {
        ChaosRun.Result r = new ChaosRun(ChaosConfig.boundedVia(transport, seed)).run();
        System.out.println(r.summary());
        assertGuarantees(r);
        assertThat(r.committed()).as("events").isGreaterThanOrEqualTo(3_000);
        assertThat(r.kills()).as("kills").isEqualTo(4);
        assertThat(r.brokerFaults()).as(faults).isEqualTo(brokerFaults);
    }

    static void assertGuarantees(ChaosRun.Result r) {
        assertThat(r.lost())
                .as("lost (committed, never published): %s", r.examples())
                .isZero();
        assertThat(r.invented())
                .as("invented (published, not committed nor unknown): %s", r.examples())
                .isZero();
        assertThat(r.rolledBackPublished()).as("rolled back yet published").isZero();
        assertThat(r.payloadMismatches())
                .as("copies whose payload differs: %s", r.examples())
                .isZero();
        assertThat(r.duplicates())
                .as("duplicates within the bound; %s", r.summary())
                .isLessThanOrEqualTo(r.bound());
    }
}
