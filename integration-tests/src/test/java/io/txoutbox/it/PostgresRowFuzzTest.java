package io.txoutbox.it;

/** The row fuzzer ({@link RowFuzzProperties}) on PostgreSQL. */
class PostgresRowFuzzTest extends RowFuzzProperties {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRES;
    }
}
