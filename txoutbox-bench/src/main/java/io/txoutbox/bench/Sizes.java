package io.txoutbox.bench;

import java.time.Duration;
import java.util.List;

/**
 * How big each workload is. {@link #FULL} fits a run in about 15 minutes on 2 cores; {@link #SMOKE}
 * proves in seconds that every number is produced.
 *
 * @param w1Seconds measured seconds per W1 cell (after a 1 s warm-up)
 * @param w1Rounds rounds over the W1 cells; the best round of each cell counts
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
        int peerBacklog) {

    static final Sizes FULL = new Sizes(
            5,
            2,
            8,
            10,
            List.of(1_000, 2_000),
            List.of(3_000, 4_000, 6_000, 8_000, 10_000, 12_000),
            200_000,
            1_000_000,
            Duration.ofSeconds(90),
            Duration.ofSeconds(45),
            Duration.ofSeconds(20),
            150_000);

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
            300);
}
