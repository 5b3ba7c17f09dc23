package io.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

    @Test
    void ids_are_version_7_variant_2_and_carry_the_millisecond() {
        long now = 1_700_000_000_123L;
        UUID id = UuidV7.at(now);
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(id.getMostSignificantBits() >>> 16).isGreaterThanOrEqualTo(now);
    }

    @Test
    void ids_made_in_one_millisecond_are_unique_and_in_order() {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(UuidV7.at(1_800_000_000_000L));
        }
        assertThat(new HashSet<>(ids)).hasSize(ids.size());
        for (int i = 1; i < ids.size(); i++) {
            assertThat(Long.compareUnsigned(
                            ids.get(i - 1).getMostSignificantBits(), ids.get(i).getMostSignificantBits()))
                    .isNegative();
        }
    }
}
