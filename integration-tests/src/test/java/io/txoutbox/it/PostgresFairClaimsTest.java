package io.txoutbox.it;

import io.txoutbox.ClaimFairness;
import io.txoutbox.Outbox;
import org.junit.jupiter.api.Nested;

/**
 * Fair claims on PostgreSQL ({@link FairClaimsContract}), and the contracts of the claim's limits, a
 * bounded heap and ordered delivery again with claims fair across tenants.
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
    class BoundedHeap extends BoundedHeapContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }

        @Override
        Outbox.Builder outboxBuilder() {
            return super.outboxBuilder().fairClaims(ClaimFairness.TENANT);
        }

        @Override
        ClaimFairness fairClaims() {
            return ClaimFairness.TENANT;
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
