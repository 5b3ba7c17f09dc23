package io.txoutbox.reliability;

import org.junit.jupiter.api.Test;

/**
 * The long soak, run only by the {@code soak} profile (see RELIABILITY.md): the bounded run's fault
 * density for {@code soak.minutes}, with {@code soak.seed}; {@code soak.ordered=true} checks order too.
 */
class ChaosSoak {

    @Test
    void soak() throws Exception {
        long seed = Long.getLong("soak.seed", 42L);
        int minutes = Integer.getInteger("soak.minutes", 30);
        boolean ordered = Boolean.getBoolean("soak.ordered");
        ChaosRun.Result r = new ChaosRun(ChaosConfig.soak(seed, minutes, ordered)).run();
        System.out.println(r.summary());
        ChaosTest.assertGuarantees(r);
        if (ordered) {
            org.assertj.core.api.Assertions.assertThat(r.orderViolations()).isZero();
        }
    }
}
