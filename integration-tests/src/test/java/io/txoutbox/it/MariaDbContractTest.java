package io.txoutbox.it;

import org.junit.jupiter.api.Nested;

/** The store contract on MariaDB: every guarantee test, unchanged, against this database. */
class MariaDbContractTest {

    @Nested
    class Append extends AtomicAppendContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class CrashAfterConfirm extends CrashAfterConfirmContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class ConcurrentRelays extends ConcurrentRelaysContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class LeaseFencing extends LeaseFencingContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class LateCommit extends LateCommitContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class CommitOrder extends CommitOrderContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class RetryAndDead extends RetryAndDeadContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class DelayedEvents extends DelayedEventContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class Operations extends OperationsContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class HandlersAndInbox extends HandlersAndInboxContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class Ordered extends OrderedDeliveryContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class Hardening extends HardeningContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class BoundedHeap extends BoundedHeapContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class ChangeDataCapture extends ChangeDataCaptureContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }

    @Nested
    class RowLimits extends RowLimitsContract {
        @Override
        TestDatabase database() {
            return TestDatabase.MARIADB;
        }
    }
}
