package io.txoutbox.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.txoutbox.ClaimFairness;
import io.txoutbox.DeadHeadPolicy;
import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxEvent;
import io.txoutbox.OutboxSchemaException;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.relay.Relay;
import io.txoutbox.spi.ClaimResult;
import io.txoutbox.spi.ClaimedEvent;
import io.txoutbox.spi.OutboxStore;
import io.txoutbox.test.RecordingPublisher;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, goal 4: claims fair across tenants (and destinations). A backlog of one tenant and a trickle
 * of another: the trickle is in the first claim, nothing is skipped or claimed twice, and ordered mode keeps
 * each aggregate's order with fairness on. Where the database cannot claim fairly the outbox refuses the
 * setting at build, naming it and the database.
 */
abstract class FairClaimsContract extends DatabaseTest {
    private static final int BACKLOG = 60;

    private void assumeFair() {
        assumeThat(database()).as("fair claims run on PostgreSQL").isEqualTo(TestDatabase.POSTGRES);
    }

    private Outbox fairOutbox(ClaimFairness fairness, DeadHeadPolicy ordered) {
        Outbox.Builder builder = outboxBuilder().fairClaims(fairness);
        return (ordered == null ? builder : builder.ordered(ordered)).build();
    }

    private static OutboxEvent tenantEvent(String tenant, String aggregateId, int n) {
        return OutboxEvent.builder("order.step")
                .aggregate("order", aggregateId)
                .tenant(tenant)
                .jsonPayload("{\"n\":" + n + "}")
                .build();
    }

    /** Appends a backlog of one tenant first, then a trickle of another and one event without a tenant. */
    private List<UUID> backlogThenTrickle(Outbox outbox, List<UUID> trickle) {
        List<OutboxEvent> backlog = new ArrayList<>();
        for (int i = 0; i < BACKLOG; i++) {
            backlog.add(tenantEvent("big", "b-" + (i % 6), i));
        }
        List<UUID> all = new ArrayList<>();
        outbox.inTransaction(c -> outbox.appendAll(c, backlog)).forEach(e -> all.add(e.id()));
        for (OutboxEvent e : appendCommitted(
                outbox, tenantEvent("small", "s-1", 0), tenantEvent("small", "s-2", 1), tenantEvent(null, "n-1", 0))) {
            trickle.add(e.id());
            all.add(e.id());
        }
        return all;
    }

    private ClaimResult claim(Outbox outbox, int limit) {
        try (OutboxStore store = Outbox.builder(dataSource())
                .table(outbox.table())
                .fairClaims(ClaimFairness.TENANT)
                .buildStore()) {
            return store.claim("me", limit, Long.MAX_VALUE, Duration.ofMinutes(1), Instant.now());
        }
    }

    @Test
    void a_trickle_behind_another_tenants_backlog_is_in_the_first_claim() {
        assumeFair();
        Outbox outbox = fairOutbox(ClaimFairness.TENANT, null);
        List<UUID> trickle = new ArrayList<>();
        backlogThenTrickle(outbox, trickle);
        ClaimResult first = claim(outbox, 10);
        assertThat(first.events()).hasSize(10);
        assertThat(first.events().stream().map(ClaimedEvent::id))
                .as("both events of tenant small and the event without a tenant")
                .containsAll(trickle);
        assertThat(first.events().stream()
                        .filter(e -> "big".equals(e.tenantId()))
                        .map(ClaimedEvent::aggregateId))
                .as("the backlog's oldest rows, in order")
                .containsExactly("b-0", "b-1", "b-2", "b-3", "b-4", "b-5", "b-0");
    }

    @Test
    void a_tenant_alone_still_fills_whole_batches() {
        assumeFair();
        Outbox outbox = fairOutbox(ClaimFairness.TENANT, null);
        List<OutboxEvent> backlog = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            backlog.add(tenantEvent("big", "b-" + i, i));
        }
        outbox.inTransaction(c -> outbox.appendAll(c, backlog));
        assertThat(claim(outbox, 25).events()).hasSize(25);
        assertThat(claim(outbox, 25).events()).as("the rest, none twice").hasSize(5);
    }

    @Test
    void fair_claims_skip_nothing_and_publish_nothing_twice() {
        assumeFair();
        Outbox outbox = fairOutbox(ClaimFairness.TENANT, null);
        List<UUID> all = backlogThenTrickle(outbox, new ArrayList<>());
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).batchSize(7).build()) {
            int published = 0;
            for (int n = relay.runOnce(); n > 0; n = relay.runOnce()) {
                published += n;
            }
            assertThat(published).isEqualTo(all.size());
        }
        assertThat(broker.duplicates()).isEmpty();
        assertThat(broker.publishedIds()).containsExactlyInAnyOrderElementsOf(all);
        assertThat(rows(outbox)).isZero();
    }

    @Test
    void ordered_mode_with_fair_claims_keeps_each_aggregates_order_and_serves_the_trickle_first() {
        assumeFair();
        Outbox outbox = fairOutbox(ClaimFairness.TENANT, DeadHeadPolicy.BLOCK);
        List<UUID> trickle = new ArrayList<>();
        List<UUID> all = backlogThenTrickle(outbox, trickle);
        ClaimResult first = claim(outbox, 5);
        assertThat(first.events().stream().map(ClaimedEvent::id)).containsAll(trickle);
        assertThat(first.events().stream()
                        .filter(e -> "big".equals(e.tenantId()))
                        .map(ClaimedEvent::aggregateId))
                .as("only heads: one event of each aggregate")
                .doesNotHaveDuplicates();
        try (OutboxStore store =
                Outbox.builder(dataSource()).table(outbox.table()).buildStore()) {
            store.releaseLeases("me");
        }
        RecordingPublisher broker = new RecordingPublisher();
        try (Relay relay = outbox.relay(broker).batchSize(4).build()) {
            while (relay.runOnce() > 0) {
                // drains the table batch by batch
            }
        }
        assertThat(broker.duplicates()).isEmpty();
        assertThat(broker.publishedIds()).containsExactlyInAnyOrderElementsOf(all);
        for (int a = 0; a < 6; a++) {
            assertThat(broker.publishedOfAggregate("b-" + a).stream()
                            .map(e -> new String(e.payload(), java.nio.charset.StandardCharsets.UTF_8)))
                    .as("aggregate b-" + a + " in append order")
                    .containsExactlyElementsOf(expectedSteps(a));
        }
    }

    private static List<String> expectedSteps(int aggregate) {
        List<String> steps = new ArrayList<>();
        for (int i = aggregate; i < BACKLOG; i += 6) {
            steps.add("{\"n\":" + i + "}");
        }
        return steps;
    }

    @Test
    void claims_fair_across_destinations_serve_a_quiet_route_behind_a_busy_one() {
        assumeFair();
        Outbox outbox = fairOutbox(ClaimFairness.DESTINATION, null);
        List<OutboxEvent> busy = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            busy.add(OutboxEvent.builder("order.placed")
                    .aggregate("order", "o-" + i)
                    .destination("busy")
                    .jsonPayload("{}")
                    .build());
        }
        outbox.inTransaction(c -> outbox.appendAll(c, busy));
        UUID quiet = appendCommitted(
                        outbox,
                        OutboxEvent.builder("order.placed")
                                .aggregate("order", "q")
                                .destination("quiet")
                                .jsonPayload("{}")
                                .build())
                .get(0)
                .id();
        ClaimResult first;
        try (OutboxStore store = Outbox.builder(dataSource())
                .table(outbox.table())
                .fairClaims(ClaimFairness.DESTINATION)
                .buildStore()) {
            first = store.claim("me", 3, Long.MAX_VALUE, Duration.ofMinutes(1), Instant.now());
        }
        Set<UUID> ids = new HashSet<>();
        first.events().forEach(e -> ids.add(e.id()));
        assertThat(ids).hasSize(3).contains(quiet);
    }

    @Test
    void a_table_without_the_fair_index_is_refused_with_the_statement_that_creates_it() {
        assumeFair();
        Outbox plain = newOutbox();
        assertThatThrownBy(() -> Outbox.builder(dataSource())
                        .table(plain.table())
                        .fairClaims(ClaimFairness.TENANT)
                        .build())
                .isInstanceOf(OutboxSchemaException.class)
                .hasMessageContaining("has no index on (tenant_id, available_at, seq)")
                .hasMessageContaining("Outbox.Builder.fairClaims(TENANT)")
                .hasMessageContaining("CREATE INDEX IF NOT EXISTS " + plain.table() + "_tenant_id_due_idx");
    }

    @Test
    void the_shipped_migration_creates_the_index_a_fair_outbox_accepts() throws Exception {
        assumeFair();
        String migration;
        try (InputStream in = FairClaimsContract.class.getResourceAsStream(
                "/db/migration/txoutbox/postgresql-fair-claims/R__txoutbox_outbox_fair_claims.sql")) {
            migration = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        OutboxTable defaults = OutboxTable.of(OutboxTable.DEFAULT_NAME);
        for (ClaimFairness fairness : ClaimFairness.values()) {
            String ddl = Dialect.POSTGRESQL.fairClaimsDdl(defaults, fairness);
            String statement = ddl.substring(ddl.indexOf("CREATE INDEX IF NOT EXISTS"));
            assertThat(migration).as(fairness.name()).contains(statement);
        }
        Outbox plain = newOutbox();
        execute(migration
                .substring(migration.indexOf("CREATE INDEX IF NOT EXISTS"))
                .replace("outbox", plain.table()));
        for (ClaimFairness fairness : ClaimFairness.values()) {
            Outbox.builder(dataSource())
                    .table(plain.table())
                    .fairClaims(fairness)
                    .build()
                    .close();
        }
    }

    @Test
    void a_database_that_cannot_claim_fairly_refuses_the_setting_naming_it_and_the_database() {
        assumeThat(database()).isNotEqualTo(TestDatabase.POSTGRES);
        String dialect = database() == TestDatabase.MARIADB ? "mariadb" : "h2";
        assertThatThrownBy(
                        () -> outboxBuilder().fairClaims(ClaimFairness.TENANT).build())
                .isInstanceOf(OutboxValidationException.class)
                .hasMessageContaining("Outbox.Builder.fairClaims is TENANT")
                .hasMessageContaining("the " + dialect + " dialect does not support");
    }
}
