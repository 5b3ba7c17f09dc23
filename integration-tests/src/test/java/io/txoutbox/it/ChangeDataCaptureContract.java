package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxStoreException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.relay.Relay;
import io.txoutbox.test.RecordingPublisher;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Change-data-capture mode ({@code Outbox.Builder.changeDataCapture}): append inserts and deletes in the
 * caller's transaction, so the table stays empty; relays are refused; stats say so. That the INSERT reaches
 * the change stream is proven with Debezium itself in txoutbox-debezium.
 */
abstract class ChangeDataCaptureContract extends DatabaseTest {

    /** @return a CDC-mode outbox and a relay-mode outbox on one fresh table */
    private Outbox[] cdcAndRelayOutboxes() {
        Outbox relayMode = newOutbox();
        Outbox cdc = Outbox.builder(dataSource())
                .table(relayMode.table())
                .changeDataCapture(true)
                .build();
        return new Outbox[] {cdc, relayMode};
    }

    @Test
    void committed_appends_leave_the_table_empty() throws Exception {
        Outbox cdc = cdcAndRelayOutboxes()[0];
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            batch.add(event("order.placed", "o-" + i));
        }
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            cdc.append(c, event("order.placed", "single"));
            cdc.appendAll(c, batch);
            c.commit();
        }
        cdc.inTransaction(c -> cdc.append(c, event("order.paid", "o-1")));
        assertThat(rows(cdc)).isZero();
    }

    @Test
    void append_still_inserts_the_row_so_the_table_refuses_a_duplicate_id() throws Exception {
        Outbox[] outboxes = cdcAndRelayOutboxes();
        OutboxEvent event = event("order.placed", "o-1");
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            outboxes[1].append(c, event);
            assertThatThrownBy(() -> outboxes[0].append(c, event))
                    .as("the CDC-mode append runs an INSERT, which meets the relay-mode row's primary key")
                    .isInstanceOf(OutboxStoreException.class);
            c.rollback();
        }
        assertThat(rows(outboxes[0])).isZero();
    }

    @Test
    void rolled_back_append_leaves_neither_the_business_row_nor_the_event() {
        Outbox cdc = cdcAndRelayOutboxes()[0];
        String business = newTable();
        execute("CREATE TABLE " + business + " (id varchar(64) PRIMARY KEY)");
        assertThatThrownBy(() -> cdc.inTransaction(c -> {
                    try (var st = c.createStatement()) {
                        st.execute("INSERT INTO " + business + " VALUES ('o-1')");
                    }
                    cdc.append(c, event("order.placed", "o-1"));
                    throw new IllegalStateException("payment declined");
                }))
                .hasMessage("payment declined");
        assertThat(count("SELECT count(*) FROM " + business)).isZero();
        assertThat(rows(cdc)).isZero();
    }

    @Test
    void a_relay_is_refused_naming_the_setting() {
        Outbox cdc = cdcAndRelayOutboxes()[0];
        assertThatThrownBy(() -> cdc.relay(new RecordingPublisher()).build())
                .isInstanceOfSatisfying(OutboxValidationException.class, e -> assertThat(e.field())
                        .isEqualTo("Outbox.Builder.changeDataCapture"))
                .hasMessageContaining("no relay can be built on the outbox table '" + cdc.table() + "'")
                .hasMessageContaining("change-data-capture mode (Outbox.Builder.changeDataCapture)");
    }

    @Test
    void stats_say_the_table_is_in_change_data_capture_mode() {
        Outbox[] outboxes = cdcAndRelayOutboxes();
        appendCommitted(outboxes[0], event("order.placed", "o-1"), event("order.placed", "o-2"));
        appendCommitted(outboxes[1], event("order.placed", "o-3"));

        assertThat(outboxes[0].admin().stats().changeDataCapture()).isTrue();
        assertThat(outboxes[0].admin().stats().pending())
                .as("only the relay-mode producer's row stays")
                .isEqualTo(1);
        assertThat(outboxes[1].admin().stats().changeDataCapture()).isFalse();
        assertThat(outboxes[0].toString()).endsWith(", change data capture]");
    }

    @Test
    void producers_of_both_modes_share_one_table_and_the_relay_sees_only_rows_that_stay() throws Exception {
        Outbox[] outboxes = cdcAndRelayOutboxes();
        OutboxEvent kept =
                appendCommitted(outboxes[1], event("order.placed", "o-1")).get(0);
        appendCommitted(outboxes[0], event("order.placed", "o-2"));
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outboxes[1].relay(broker).build()) {
            assertThat(relay.runOnce()).isEqualTo(1);
        }
        assertThat(broker.publishedIds()).containsExactly(kept.id());
        assertThat(rows(outboxes[1])).isZero();
    }

    @Test
    void a_delayed_event_is_refused_and_nothing_of_its_batch_is_written() throws Exception {
        Outbox cdc = cdcAndRelayOutboxes()[0];
        OutboxEvent delayed = OutboxEvent.builder("email.sent")
                .aggregate("order", "o-1")
                .jsonPayload("{}")
                .delay(Duration.ofMinutes(5))
                .build();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> cdc.appendAll(c, List.of(event("order.placed", "o-1"), delayed)))
                    .isInstanceOfSatisfying(OutboxValidationException.class, e -> assertThat(e.field())
                            .isEqualTo("OutboxEvent.delay"))
                    .hasMessageContaining("events[1] (" + delayed.id() + ") has OutboxEvent.delay set")
                    .hasMessageContaining("Outbox.Builder.changeDataCapture");
            OutboxEvent due = OutboxEvent.builder("email.sent")
                    .aggregate("order", "o-1")
                    .jsonPayload("{}")
                    .availableAt(cdc.clock().instant().minusSeconds(1))
                    .build();
            assertThat(cdc.append(c, due).id())
                    .as("a due time already passed is fine")
                    .isEqualTo(due.id());
            c.commit();
        }
        assertThat(rows(cdc)).isZero();
    }

    @Test
    void ordered_mode_and_change_data_capture_contradict_each_other() {
        assertThatThrownBy(() -> outboxBuilder()
                        .ordered(DeadHeadPolicy.BLOCK)
                        .changeDataCapture(true)
                        .build())
                .isInstanceOfSatisfying(OutboxValidationException.class, e -> assertThat(e.field())
                        .isEqualTo("Outbox.Builder.ordered"))
                .hasMessageContaining("Outbox.Builder.changeDataCapture");
    }
}
