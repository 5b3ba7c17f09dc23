package io.txoutbox.it;

/** Fair claims ({@link FairClaimsContract}) on H2: refused at build, naming the setting and the database. */
class H2FairClaimsTest extends FairClaimsContract {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
