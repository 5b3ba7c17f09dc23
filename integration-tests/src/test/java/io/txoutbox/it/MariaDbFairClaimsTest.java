package io.txoutbox.it;

/** Fair claims ({@link FairClaimsContract}) on MariaDb: refused at build, naming the setting and the database. */
class MariaDbFairClaimsTest extends FairClaimsContract {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
