package io.txoutbox.reliability;

import java.time.Duration;

/**
 * One chaos run: the broker the relays publish to, how long faults are injected, how much is produced,
 * and how many faults of each kind (every planned fault is carried out; their order and timing come
 * from the seed).
 *
 * @param transport the broker and transport the relays publish with
 * @param seed drives the fault order and timing, the producers' choices, which relay is hit
 * @param chaosDuration how long faults are spread over
 * @param minEvents producers go on past the faults until this many events committed
 * @param relays relay processes
 * @param batchSize rows per claim
 * @param inFlightBatches the relays' {@code maxInFlightBatches}: pipelining on, so every fault meets
 *     relays with several batches in flight
 * @param lease the relays' lease
 * @param publishTimeout the relays' publish timeout
 * @param ordered ordered mode (per-aggregate order checked)
 * @param producers producer threads
 * @param kills SIGKILLs of a relay, each followed by a restart
 * @param stops SIGSTOPs of a relay for longer than the lease, then SIGCONT
 * @param brokerRestarts stops of the broker, then starts (only for a {@link Transport#restartable()} one)
 * @param cuts proxy cuts between the relays and the broker
 * @param blackholes proxy blackholes (longer than the publish timeout)
 * @param delays proxy delays (a slow network, shorter than the publish timeout)
 * @param relayTerminations {@code pg_terminate_backend} of every relay backend, LISTEN ones included
 * @param producerTerminations {@code pg_terminate_backend} of the producers' backends (unknown commits)
 */
record ChaosConfig(
        Transport transport,
        long seed,
        Duration chaosDuration,
        long minEvents,
        int relays,
        int batchSize,
        int inFlightBatches,
        Duration lease,
        Duration publishTimeout,
        boolean ordered,
        int producers,
        int kills,
        int stops,
        int brokerRestarts,
        int cuts,
        int blackholes,
        int delays,
        int relayTerminations,
        int producerTerminations) {

    /** The brokers a chaos run can relay to, each started by the test itself. */
    enum Transport {
        /** A private {@code nats-server -js} process; a restart keeps its file store. */
        NATS(true),
        /** ElasticMQ in the test JVM, one standard queue; in memory, so never restarted. */
        SQS(false),
        /** An embedded ActiveMQ Artemis broker in the test JVM, one queue; a restart keeps its journal. */
        JMS(true);

        private final boolean restartable;

        Transport(boolean restartable) {
            this.restartable = restartable;
        }

        /** @return whether the broker can be stopped and started without losing what it stored */
        boolean restartable() {
            return restartable;
        }
    }

    ChaosConfig {
        if (brokerRestarts > 0 && !transport.restartable()) {
            throw new IllegalArgumentException(transport + " cannot be restarted without losing what it stored");
        }
    }

    /** Batches each chaos relay has in flight at once: pipelining is on in every run. */
    static final int IN_FLIGHT_BATCHES = 3;

    /** The bounded run of the normal suite: about two and a half minutes of faults. */
    static ChaosConfig bounded(long seed) {
        return new ChaosConfig(
                Transport.NATS,
                seed,
                Duration.ofSeconds(140),
                52_000,
                3,
                50,
                IN_FLIGHT_BATCHES,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                false,
                3,
                22,
                2,
                1,
                1,
                1,
                1,
                3,
                2);
    }

    /** A shorter ordered run of the normal suite. */
    static ChaosConfig boundedOrdered(long seed) {
        return new ChaosConfig(
                Transport.NATS,
                seed,
                Duration.ofSeconds(45),
                12_000,
                3,
                50,
                IN_FLIGHT_BATCHES,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                true,
                3,
                6,
                1,
                1,
                1,
                0,
                0,
                1,
                1);
    }

    /**
     * A short unordered run that relays through SQS or JMS instead of NATS, with the same oracle: about
     * 15 s of relay kills, a stall past the lease, a proxy cut, blackhole and delay, a broker restart
     * where the broker survives one, and database terminations.
     */
    static ChaosConfig boundedVia(Transport transport, long seed) {
        return new ChaosConfig(
                transport,
                seed,
                Duration.ofSeconds(15),
                3_000,
                3,
                50,
                IN_FLIGHT_BATCHES,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                false,
                3,
                4,
                1,
                transport.restartable() ? 1 : 0,
                1,
                1,
                1,
                1,
                1);
    }

    /** A soak of the given length: the bounded run's fault density, for as long as asked. */
    static ChaosConfig soak(long seed, int minutes, boolean ordered) {
        double scale = minutes * 60 / 140.0;
        return new ChaosConfig(
                Transport.NATS,
                seed,
                Duration.ofMinutes(minutes),
                (long) (52_000 * scale),
                3,
                50,
                IN_FLIGHT_BATCHES,
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                ordered,
                3,
                (int) Math.ceil(22 * scale),
                (int) Math.ceil(2 * scale),
                (int) Math.ceil(scale),
                (int) Math.ceil(scale),
                (int) Math.ceil(scale),
                (int) Math.ceil(scale),
                (int) Math.ceil(3 * scale),
                (int) Math.ceil(2 * scale));
    }
}
