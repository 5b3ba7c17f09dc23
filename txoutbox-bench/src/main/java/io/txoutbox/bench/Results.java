package io.txoutbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Every number a run produced, in order. */
final class Results {
    /** One measured value. */
    record Row(
            String workload, String scenario, String variant, String metric, double value, String unit, String note) {}

    final List<Row> rows = new ArrayList<>();
    /** Per workload: when and under what load its numbers were measured (kept across partial runs). */
    final java.util.Map<String, String> measured = new java.util.LinkedHashMap<>();

    /** Adds a row measured by an earlier run, silently. */
    void keep(Row row) {
        rows.add(row);
    }

    Row add(String workload, String scenario, String variant, String metric, double value, String unit, String note) {
        Row r = new Row(workload, scenario, variant, metric, value, unit, note == null ? "" : note);
        rows.add(r);
        System.out.printf(
                Locale.ROOT,
                "%-4s %-28s %-22s %-14s %12.2f %-9s %s%n",
                workload,
                scenario,
                variant,
                metric,
                value,
                unit,
                r.note());
        return r;
    }

    /** @return the value, or NaN when it was not measured */
    double get(String workload, String scenario, String variant, String metric) {
        for (Row r : rows) {
            if (r.workload().equals(workload)
                    && r.scenario().equals(scenario)
                    && r.variant().equals(variant)
                    && r.metric().equals(metric)) {
                return r.value();
            }
        }
        return Double.NaN;
    }
}
