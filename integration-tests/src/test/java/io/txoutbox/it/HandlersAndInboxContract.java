package io.txoutbox.it;

import static io.txoutbox.test.OutboxAssert.assertThatOutbox;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.handler.EventHandlers;
import io.txoutbox.handler.PermanentFailureException;
import io.txoutbox.inbox.Inbox;
import io.txoutbox.relay.Relay;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Acceptance 11: in-process handlers route by exact type and prefix; the inbox reports a duplicate. */
abstract class HandlersAndInboxContract extends DatabaseTest {

    @Test
    void handlers_route_by_exact_type_then_longest_prefix_and_unknown_types_go_dead() {
        Outbox outbox = newOutbox();
        List<String> billing = new CopyOnWriteArrayList<>();
        List<String> emails = new CopyOnWriteArrayList<>();
        List<String> welcome = new CopyOnWriteArrayList<>();
        EventHandlers handlers = EventHandlers.builder()
                .on("order.placed", e -> billing.add(e.aggregateId()))
                .on("email.*", e -> emails.add(e.eventType()))
                .on("email.welcome*", e -> welcome.add(e.eventType()))
                .on("email.broken", e -> {
                    throw new PermanentFailureException("template missing");
                })
                .build();
        appendCommitted(
                outbox,
                event("order.placed", "o-1"),
                event("email.receipt", "o-1"),
                event("email.welcome.v2", "u-1"),
                event("email.broken", "u-2"),
                event("sms.sent", "u-3"));
        try (Relay relay = outbox.relay(handlers).build()) {
            relay.runOnce();
        }
        assertThat(billing).containsExactly("o-1");
        assertThat(emails).containsExactly("email.receipt");
        assertThat(welcome).containsExactly("email.welcome.v2");
        assertThatOutbox(outbox)
                .hasDead(2)
                .hasPending(0)
                .hasDeadEventWithReasonContaining("no handler for event type 'sms.sent'")
                .hasDeadEventWithReasonContaining("template missing");
    }

    @Test
    void a_handler_that_throws_is_retried_with_its_reason() {
        Outbox outbox = newOutbox();
        EventHandlers handlers = EventHandlers.builder()
                .on("order.placed", e -> {
                    throw new java.io.IOException("smtp down");
                })
                .build();
        var id = appendCommitted(outbox, event("order.placed", "o-1")).get(0).id();
        try (Relay relay = outbox.relay(handlers).build()) {
            relay.runOnce();
        }
        assertThatOutbox(outbox).hasRetrying(1);
        assertThat(column(outbox, id, "last_error")).isEqualTo("IOException: smtp down");
    }

    @Test
    void handler_routes_are_checked_as_they_are_added() {
        assertThatThrownBy(() -> EventHandlers.builder().on("a", e -> {}).on("a", e -> {}))
                .isInstanceOf(OutboxValidationException.class)
                .hasMessage("EventHandlers route 'a' has two handlers");
        assertThatThrownBy(() -> EventHandlers.builder().on(" ", e -> {}))
                .isInstanceOf(OutboxValidationException.class);
    }

    @Test
    void inbox_applies_an_event_once_and_reports_the_duplicate() throws Exception {
        String table = newTable();
        Inbox inbox = Inbox.builder(dataSource())
                .table(table)
                .consumer("billing")
                .createSchemaIfMissing(true)
                .build();
        Inbox otherConsumer =
                Inbox.builder(dataSource()).table(table).consumer("stock").build();
        UUID eventId = UUID.randomUUID();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(inbox.markProcessed(c, eventId)).as("first delivery").isTrue();
            c.commit();
            assertThat(inbox.markProcessed(c, eventId)).as("redelivery").isFalse();
            assertThat(otherConsumer.markProcessed(c, eventId))
                    .as("each consumer has its own memory")
                    .isTrue();
            c.commit();

            UUID rolledBack = UUID.randomUUID();
            assertThat(inbox.markProcessed(c, rolledBack)).isTrue();
            c.rollback();
            assertThat(inbox.markProcessed(c, rolledBack))
                    .as("a rolled-back mark is forgotten")
                    .isTrue();
            c.commit();
        }
        assertThat(inbox.purgeOlderThan(Duration.ofDays(1))).isZero();
        assertThat(inbox.purgeOlderThan(Duration.ofSeconds(-1))).isEqualTo(2);
        assertThat(otherConsumer.purgeOlderThan(Duration.ofSeconds(-1))).isEqualTo(1);
    }

    @Test
    void inbox_on_a_missing_table_fails_at_build_with_how_to_create_it() {
        assertThatThrownBy(() -> Inbox.builder(dataSource()).table(newTable()).build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("Inbox.Builder.createSchemaIfMissing(true)");
    }
}
