package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.EventHeaders;
import io.txoutbox.EventScope;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Acceptance 1: the event row exists if and only if the business transaction committed. */
abstract class AtomicAppendContract extends DatabaseTest {

    @Test
    void rolled_back_transaction_leaves_no_row_and_publishes_nothing() throws Exception {
        Outbox outbox = newOutbox();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, event("order.placed", "o-1"));
            c.rollback();
        }
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build()) {
            assertThat(relay.runOnce()).isZero();
        }
        assertThat(rows(outbox)).isZero();
        assertThat(broker.attempts()).isEmpty();
    }

    @Test
    void work_that_throws_inside_inTransaction_rolls_back_the_business_row_and_the_event() {
        Outbox outbox = newOutbox();
        String business = newTable();
        execute("CREATE TABLE " + business + " (id varchar(64) PRIMARY KEY)");
        assertThatThrownBy(() -> outbox.inTransaction(c -> {
                    try (var st = c.createStatement()) {
                        st.execute("INSERT INTO " + business + " VALUES ('o-1')");
                    }
                    outbox.append(c, event("order.placed", "o-1"));
                    throw new IllegalStateException("payment declined");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("payment declined");
        assertThat(count("SELECT count(*) FROM " + business)).isZero();
        assertThat(rows(outbox)).isZero();
    }

    @Test
    void appended_event_is_invisible_to_others_until_commit_then_published_once() throws Exception {
        Outbox outbox = newOutbox();
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).build();
                Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            OutboxEvent written = outbox.append(c, event("order.placed", "o-1"));
            assertThat(rows(outbox))
                    .as("visible from another connection before commit")
                    .isZero();
            assertThat(relay.runOnce()).isZero();
            c.commit();
            assertThat(relay.runOnce()).isEqualTo(1);
            assertThat(broker.published()).singleElement().satisfies(e -> {
                assertThat(e.id()).isEqualTo(written.id());
                assertThat(e.payloadAsString()).isEqualTo("{\"orderId\":\"o-1\"}");
                assertThat(e.attempt()).isEqualTo(1);
            });
        }
        assertThat(rows(outbox)).as("published rows are deleted by default").isZero();
    }

    @Test
    void append_uses_only_the_callers_connection_and_never_commits() throws Exception {
        AtomicInteger borrowed = new AtomicInteger();
        DataSource counting = new CountingDataSource(dataSource(), borrowed);
        Outbox outbox = Outbox.builder(counting)
                .table(newTable())
                .createSchemaIfMissing(true)
                .build();
        int afterBuild = borrowed.get();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, event("order.placed", "o-1"));
            outbox.appendAll(c, List.of(event("order.paid", "o-1"), event("order.shipped", "o-1")));
            assertThat(borrowed.get()).as("connections borrowed by append").isEqualTo(afterBuild);
            assertThat(rows(outbox)).as("committed by append").isZero();
            c.rollback();
        }
        assertThat(rows(outbox)).isZero();
    }

    @Test
    void scope_stamps_correlation_causation_tenant_and_trace_on_events_that_name_none() {
        Outbox outbox = outboxBuilder()
                .scope(() -> new EventScope("corr-1", "cause-1", "tenant-a", "00-trace-span-01", "k=v"))
                .build();
        RecordingPublisher broker = new RecordingPublisher();
        appendCommitted(
                outbox,
                event("order.placed", "o-1"),
                OutboxEvent.builder("order.paid")
                        .aggregate("order", "o-1")
                        .jsonPayload("{}")
                        .correlationId("own-corr")
                        .tenant("tenant-b")
                        .build());
        try (Relay relay = outbox.relay(broker).build()) {
            relay.runOnce();
        }
        assertThat(broker.published()).hasSize(2);
        var placed = broker.publishedOfType("order.placed").get(0);
        assertThat(placed.correlationId()).isEqualTo("corr-1");
        assertThat(placed.causationId()).isEqualTo("cause-1");
        assertThat(placed.traceparent()).isEqualTo("00-trace-span-01");
        assertThat(placed.header(EventHeaders.TRACESTATE)).isEqualTo("k=v");
        assertThat(placed.tenantId()).isEqualTo("tenant-a");
        var paid = broker.publishedOfType("order.paid").get(0);
        assertThat(paid.correlationId()).isEqualTo("own-corr");
        assertThat(paid.tenantId()).isEqualTo("tenant-b");
    }

    /** A real data source that counts how often a connection is borrowed. */
    private record CountingDataSource(DataSource delegate, AtomicInteger borrowed) implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            borrowed.incrementAndGet();
            return delegate.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            borrowed.incrementAndGet();
            return delegate.getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return delegate.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            delegate.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            delegate.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return delegate.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return delegate.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return delegate.isWrapperFor(iface);
        }
    }
}
