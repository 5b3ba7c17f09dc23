package io.txoutbox.it;

import io.txoutbox.ClaimFairness;
import io.txoutbox.Outbox;

/** The row fuzzer ({@link RowFuzzProperties}) on PostgreSQL, with claims fair across tenants. */
class PostgresFairRowFuzzTest extends RowFuzzProperties {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }

    @Override
    Outbox.Builder outboxBuilder() {
        return super.outboxBuilder().fairClaims(ClaimFairness.TENANT);
    }
}
