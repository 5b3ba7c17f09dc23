package io.txoutbox.it;

/** The row fuzzer ({@link RowFuzzProperties}) on H2. */
class H2RowFuzzTest extends RowFuzzProperties {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
