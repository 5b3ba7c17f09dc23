package io.txoutbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * W4's no-op drain in alternating rounds: raw SQL, the relay with its default settings, and the relay
 * with 1 and 4 batches in flight, each round in a rotated order, so that the machine's drift over the
 * run touches every variant alike. Each txoutbox variant reports the median of its paired ratios to raw
 * SQL of the same round ("of ceiling, median"), and raw SQL its median rate (the ceiling of this run).
 */
final class DrainRounds {
    /** Rounds over the variants. */
    static final int ROUNDS = 3;
    /** The scenario of the rows this adds to W4. */
    static final String SCENARIO = "no-op, " + ROUNDS + " paired rounds";
    /** The relay's default (0: no setting), then fixed numbers of batches in flight, then the default again. */
    private static final int[] IN_FLIGHT = {0, 1, 4, 0};
    /**
     * The last variant: the default relay whose claims wait for their log flush, as before ({@code
     * txoutbox.internal.claim-commit=flush}, read when the drain builds its outbox).
     */
    private static final int FLUSHED = 3;

    /** The switch that makes a store's claims wait for their log flush (see the core's OneStatementClaims). */
    static final String CLAIM_COMMIT = "txoutbox.internal.claim-commit";

    private final Workloads workloads;
    private final Results results;
    private final String workload;

    /** @param workload where the summary rows go: W4, or W4R when the rounds run alone ({@code --only W4R}) */
    DrainRounds(Workloads workloads, Results results, String workload) {
        this.workloads = workloads;
        this.results = results;
        this.workload = workload;
    }

    private static String variant(int v) {
        if (v == FLUSHED) {
            return "txoutbox, defaults, claim flushed (before)";
        }
        return IN_FLIGHT[v] == 0 ? "txoutbox, defaults" : "txoutbox, " + IN_FLIGHT[v] + " in flight";
    }

    void run(int backlog) throws Exception {
        int variants = IN_FLIGHT.length + 1;
        double[] raw = new double[ROUNDS];
        double[][] tx = new double[IN_FLIGHT.length][ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            for (int k = 0; k < variants; k++) {
                int v = (k + round) % variants;
                String scenario = "round " + (round + 1);
                int size = results.rows.size();
                if (v == IN_FLIGHT.length) {
                    workloads.drain("W4R", scenario, Workloads.RAW, backlog, 1);
                    raw[round] = results.get("W4R", scenario, Workloads.RAW, "drain");
                } else {
                    workloads.inFlight = IN_FLIGHT[v];
                    if (v == FLUSHED) {
                        System.setProperty(CLAIM_COMMIT, "flush");
                    }
                    try {
                        workloads.drain("W4R", scenario, Workloads.TXOUTBOX, backlog, 1);
                    } finally {
                        workloads.inFlight = 0;
                        System.clearProperty(CLAIM_COMMIT);
                    }
                    tx[v][round] = results.get("W4R", scenario, Workloads.TXOUTBOX, "drain");
                }
                // The rounds' own rows stay out of the report: the summary below says each of them.
                results.rows.subList(size, results.rows.size()).clear();
            }
        }
        results.add(
                workload,
                SCENARIO,
                Workloads.RAW,
                "drain, median",
                median(raw),
                "events/s",
                "the ceiling of this run; rounds: " + list(raw, "%.0f"));
        for (int v = 0; v < IN_FLIGHT.length; v++) {
            double[] ratios = new double[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                ratios[round] = 100 * tx[v][round] / raw[round];
            }
            results.add(
                    workload,
                    SCENARIO,
                    variant(v),
                    "of ceiling, median",
                    median(ratios),
                    "%",
                    "median of paired ratios to raw SQL in the same round: " + list(ratios, "%.1f%%") + "; drain rates "
                            + list(tx[v], "%.0f") + " events/s");
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String list(double[] values, String format) {
        List<String> out = new ArrayList<>();
        for (double v : values) {
            out.add(String.format(Locale.ROOT, format, v));
        }
        return String.join(", ", out);
    }
}
