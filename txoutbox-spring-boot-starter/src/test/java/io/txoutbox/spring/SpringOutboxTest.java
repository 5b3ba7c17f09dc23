package io.txoutbox.spring;

import static io.txoutbox.spring.TxOutboxAutoConfigurationTest.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxAdmin;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxException;
import io.txoutbox.OutboxTable;
import io.txoutbox.harness.LocalPostgres;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/** The Spring outbox against a plain DataSourceTransactionManager on the local PostgreSQL. */
class SpringOutboxTest {
    private HikariDataSource dataSource;
    private HikariDataSource otherDataSource;
    private String table;
    private CountingOutbox counting;
    private SpringOutbox outbox;
    private TransactionTemplate tx;

    @BeforeEach
    void setUp() {
        dataSource = LocalPostgres.pool("spring-outbox-test");
        table = TestDatabase.uniqueTable("sb_outbox");
        counting = new CountingOutbox(Outbox.builder(dataSource)
                .table(table)
                .createSchemaIfMissing(true)
                .build());
        outbox = new SpringOutbox(counting, dataSource, false);
        tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    @AfterEach
    void tearDown() {
        TestDatabase.dropOutbox(table);
        dataSource.close();
        if (otherDataSource != null) {
            otherDataSource.close();
        }
    }

    @Test
    void appends_join_the_transaction_and_vanish_with_its_rollback() {
        assertThatThrownBy(() -> tx.executeWithoutResult(s -> {
                    outbox.append(event("order.placed", "o-1"));
                    throw new IllegalStateException("payment declined");
                }))
                .hasMessage("payment declined");

        assertThat(rows()).isZero();
        assertThat(counting.committed.get()).as("no wake-up for a rollback").isZero();
    }

    @Test
    void a_commit_wakes_the_relays_once_however_many_appends_the_transaction_made() {
        tx.executeWithoutResult(s -> {
            outbox.append(event("order.placed", "o-1"));
            outbox.append(event("order.paid", "o-1"));
            outbox.appendAll(List.of(event("email.sent", "o-1"), event("sms.sent", "o-1")));
            assertThat(counting.committed.get()).as("not before the commit").isZero();
        });

        assertThat(rows()).isEqualTo(4);
        assertThat(counting.committed.get()).isEqualTo(1);
    }

    @Test
    void a_nested_new_transaction_signals_its_own_commit() {
        TransactionTemplate requiresNew = new TransactionTemplate(tx.getTransactionManager());
        requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);

        assertThatThrownBy(() -> tx.executeWithoutResult(s -> {
                    outbox.append(event("order.placed", "o-1"));
                    requiresNew.executeWithoutResult(inner -> outbox.append(event("audit.logged", "o-1")));
                    assertThat(counting.committed.get()).isEqualTo(1);
                    throw new IllegalStateException("outer fails");
                }))
                .hasMessage("outer fails");

        assertThat(rows()).as("only the inner transaction's event").isEqualTo(1);
        assertThat(counting.committed.get()).isEqualTo(1);
    }

    @Test
    void append_outside_a_transaction_is_refused_and_writes_nothing() {
        assertThatThrownBy(() -> outbox.append(event("order.placed", "o-1")))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("atomicity");
        assertThat(rows()).isZero();
    }

    @Test
    void a_transaction_on_another_data_source_is_refused_instead_of_committing_alone() {
        otherDataSource = LocalPostgres.pool("spring-outbox-test-other");
        TransactionTemplate otherTx = new TransactionTemplate(new DataSourceTransactionManager(otherDataSource));

        assertThatThrownBy(() -> otherTx.executeWithoutResult(s -> outbox.append(event("order.placed", "o-1"))))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("holds no connection of the outbox's DataSource");
        assertThat(rows()).isZero();
    }

    @Test
    void when_allowed_an_append_outside_a_transaction_commits_alone_and_wakes_at_once() {
        SpringOutbox lenient = new SpringOutbox(counting, dataSource, true);

        lenient.append(event("order.placed", "o-1"));

        assertThat(rows()).isEqualTo(1);
        assertThat(counting.committed.get()).isEqualTo(1);
    }

    private long rows() {
        return TestDatabase.count("SELECT count(*) FROM " + table);
    }

    /** The real outbox, counting the wake-up signals. */
    private static final class CountingOutbox implements Outbox {
        final Outbox real;
        final AtomicInteger committed = new AtomicInteger();

        CountingOutbox(Outbox real) {
            this.real = real;
        }

        @Override
        public OutboxEvent append(Connection connection, OutboxEvent event) {
            return real.append(connection, event);
        }

        @Override
        public List<OutboxEvent> appendAll(Connection connection, List<OutboxEvent> events) {
            return real.appendAll(connection, events);
        }

        @Override
        public void committed() {
            committed.incrementAndGet();
            real.committed();
        }

        @Override
        public <T> T inTransaction(TransactionWork<T> work) {
            return real.inTransaction(work);
        }

        @Override
        public OutboxAdmin admin() {
            return real.admin();
        }

        @Override
        public void createSchema() {
            real.createSchema();
        }

        @Override
        public Relay.Builder relay(Publisher publisher) {
            return real.relay(publisher);
        }

        @Override
        public OutboxTable outboxTable() {
            return real.outboxTable();
        }

        @Override
        public InstantSource clock() {
            return real.clock();
        }
    }
}
