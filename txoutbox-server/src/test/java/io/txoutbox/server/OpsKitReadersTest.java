package io.txoutbox.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The readers the operations kit's tests rely on: what they extract from PromQL and from the dashboard's script. */
class OpsKitReadersTest {
    @Test
    void promql_selectors_and_the_labels_of_matchers_groupings_and_on_are_read() {
        PromQl.Analysis a =
                PromQl.analyze("sum by (job, source) (rate(x_total{outcome=\"retried\", route=~\"a|b\"}[5m]))"
                        + " / on (job) sum(y_seconds offset 10m) by (table) > bool 0 unless max(z)");
        assertThat(a.selectors())
                .extracting(PromQl.Selector::text)
                .containsExactly("x_total{outcome=\"retried\", route=~\"a|b\"}", "y_seconds", "z");
        assertThat(a.requiredLabels())
                .isEqualTo(Map.of(
                        "x_total", Set.of("outcome", "route", "job", "source"),
                        "y_seconds", Set.of("job", "table"),
                        "z", Set.of("job")));
    }

    @Test
    void promql_without_and_ignoring_require_no_label_and_a_nameless_selector_is_refused() {
        assertThat(PromQl.analyze("sum without (relay) (a) + ignoring (type) b").requiredLabels())
                .isEqualTo(Map.of("a", Set.of(), "b", Set.of()));
        assertThatThrownBy(() -> PromQl.analyze("sum({__name__=\"a\"})")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void dashboard_paths_follow_concatenation_ternaries_parameters_and_the_nearest_binding() {
        String js = """
                const action = cell(tr, '');
                function later() {
                  const path = '/sources/' + encodeURIComponent(source);
                  const action = status === 'paused' ? 'resume' : 'pause';
                  api('POST', path + '/' + action + (all ? '?all=1' : ''));
                }
                """;
        int at = js.indexOf("api(");
        assertThat(JsPaths.evaluate(js, at, "path + '/' + action + (all ? '?all=1' : '')"))
                .containsExactlyInAnyOrder(
                        "/sources/{param}/resume?all=1",
                        "/sources/{param}/resume",
                        "/sources/{param}/pause?all=1",
                        "/sources/{param}/pause");
        assertThatThrownBy(() -> JsPaths.evaluate(js, at, "base() + '/x'"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JsPaths.evaluate(js, at, "nowhere + '/x'"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
