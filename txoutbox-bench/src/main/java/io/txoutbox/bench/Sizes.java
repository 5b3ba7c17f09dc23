package io.txoutbox.bench;

import java.time.Duration;
import java.util.List;

/**
 * How big each workload is. {@link #FULL} fits W1 to EXP in about 15 minutes on 2 cores, and W6 in 40 more; {@link #SMOKE}
 * proves in seconds that every number is produced.
 *
 * @param w1Seconds measured seconds per W1 cell (after a 1 s warm-up)
 * @param w1Rounds paired rounds of W1 (txoutbox and the baseline alternating): the median ratio counts
 * @param w1Threads producer threads of W1
 * @param w2Seconds seconds per W2 rate
 * @param w2Rates the fixed rates of W2, events/s
 * @param w2Search the rates tried, in order, for the highest sustainable one
 * @param w3Backlog events pre-loaded for each W3 run
 * @param w4Backlog events pre-loaded for each W4, W5 and ordered run
 * @param drainCap the longest any drain runs; a capped drain reports its rate so far
 * @param slowCap the longest a W5 or ordered drain runs (they slow down as they go: the rate is over it)
 * @param peerCap the longest a peer drain runs (the peer is much slower; its rate is stable within it)
 * @param peerBacklog entries pre-loaded for a peer drain
 * @param w6Duration how long each W6 soak runs (the steady one and the one with a held snapshot)
 * @param w6Windows how many equal windows W6 reports (20 windows of 20 minutes: one a minute)
 * @param w6Rate the steady rate of W6's open-loop producers, events/s
 * @param w6HoldFrom the first window (from 1) during which W6's variant holds a snapshot
 * @param w6HoldTo the last window during which it holds it
 */
record Sizes(
        int w1Seconds,
        int w1Rounds,
        int w1Threads,
        int w2Seconds,
        List<Integer> w2Rates,
        List<Integer> w2Search,
        int w3Backlog,
        int w4Backlog,
        Duration drainCap,
        Duration slowCap,
        Duration peerCap,
        int peerBacklog,
        Duration w6Duration,
        int w6Windows,
        int w6Rate,
        int w6HoldFrom,
        int w6HoldTo) {

    static final Sizes FULL = new Sizes(
            5,
            9,
            8,
            10,
            List.of(1_000, 2_000),
            List.of(3_000, 4_000, 6_000, 8_000, 10_000, 12_000),
            200_000,
            1_000_000,
            Duration.ofSeconds(90),
            Duration.ofSeconds(45),
            Duration.ofSeconds(20),
            150_000,
            Duration.ofMinutes(20),
            20,
            3_000,
            6,
            10);

    static final Sizes SMOKE = new Sizes(
            1,
            1,
            4,
            1,
            List.of(200),
            List.of(300),
            1_000,
            2_000,
            Duration.ofSeconds(20),
            Duration.ofSeconds(20),
            Duration.ofSeconds(3),
            300,
            Duration.ofSeconds(10),
            20,
            300,
            6,
            10);

    /** @return these sizes with W6 lasting {@code minutes} (the same windows and hold, each longer or shorter) */
    Sizes withW6Minutes(int minutes) {
        if (minutes < 1) {
            throw new IllegalArgumentException("--w6-minutes must be at least 1, not " + minutes);
        }
        return new Sizes(
                w1Seconds,
                w1Rounds,
                w1Threads,
                w2Seconds,
                w2Rates,
                w2Search,
                w3Backlog,
                w4Backlog,
                drainCap,
                slowCap,
                peerCap,
                peerBacklog,
                Duration.ofMinutes(minutes),
                w6Windows,
                w6Rate,
                w6HoldFrom,
                w6HoldTo);
    }

    /** @return the length of one W6 window */
    Duration w6Window() {
        return w6Duration.dividedBy(w6Windows);
    }
}
