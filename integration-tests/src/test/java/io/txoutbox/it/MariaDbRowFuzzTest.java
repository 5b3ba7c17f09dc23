package io.txoutbox.it;

/** The row fuzzer ({@link RowFuzzProperties}) on MariaDB. */
class MariaDbRowFuzzTest extends RowFuzzProperties {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
