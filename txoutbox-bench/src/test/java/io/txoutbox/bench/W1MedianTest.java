package io.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class W1MedianTest {

    @Test
    void the_median_of_an_odd_count_is_the_middle_value_whatever_the_order() {
        assertThat(Workloads.median(List.of(1.10, 0.90, 0.95, 2.0, 0.5))).isEqualTo(0.95);
    }

    @Test
    void the_median_of_an_even_count_is_the_mean_of_the_two_middle_values() {
        assertThat(Workloads.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    }

    @Test
    void the_median_leaves_the_rounds_in_their_order() {
        List<Double> rounds = new java.util.ArrayList<>(List.of(3.0, 1.0, 2.0));
        Workloads.median(rounds);
        assertThat(rounds).containsExactly(3.0, 1.0, 2.0);
    }
}
