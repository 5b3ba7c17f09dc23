package io.txoutbox.it;

import org.junit.jupiter.api.Nested;

/** The store contract on PostgreSQL: every guarantee test, unchanged, against this database. */
class PostgresContractTest {

    @Nested
    class Append extends AtomicAppendContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class CrashAfterConfirm extends CrashAfterConfirmContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class ConcurrentRelays extends ConcurrentRelaysContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class LeaseFencing extends LeaseFencingContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class LateCommit extends LateCommitContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class CommitOrder extends CommitOrderContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class RetryAndDead extends RetryAndDeadContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class DelayedEvents extends DelayedEventContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class Operations extends OperationsContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class HandlersAndInbox extends HandlersAndInboxContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class Ordered extends OrderedDeliveryContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class Hardening extends HardeningContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class BoundedHeap extends BoundedHeapContract {
        @Override
        TestDatabase database() {
            return TestDatabase.POSTGRES;
        }
    }

    @Nested
    class ChangeDataCapture extends ChangeDataCaptureContract {
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
    }
}
