package io.txoutbox.it;

import io.txoutbox.ClaimFairness;
import io.txoutbox.Outbox;
import org.junit.jupiter.api.Nested;

/**
 * Fair claims on PostgreSQL ({@link FairClaimsContract}), and the contracts of the claim's limits and of
 * ordered delivery again with claims fair across tenants. The bounded-heap contract passes with fair claims
 * too ({@link BoundedHeapContract#fairClaims()}), but its two relay processes take 110 s, too long to run it
 * a second time in every build: override that method in a nested class to run it.
 */
class PostgresFairClaimsTest {

    @Nested
    class Fair extends FairClaimsContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class RowLimits extends RowLimitsContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }

        @Override
        Outbox.Builder outboxBuilder() {
            return super.outboxBuilder().fairClaims(ClaimFairness.TENANT);
        }
    }

    @Nested
    class Ordered extends OrderedDeliveryContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }

        @Override
        Outbox.Builder outboxBuilder() {
            return super.outboxBuilder().fairClaims(ClaimFairness.TENANT);
        }
    }
}
