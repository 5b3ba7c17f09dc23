package io.txoutbox.spring;

import io.txoutbox.Outbox;
import io.txoutbox.OutboxStats;
import java.time.Duration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * DOWN when dead events exceed {@code txoutbox.health.dead-threshold}, or when the oldest unpublished
 * event is older than {@code txoutbox.health.oldest-pending-age-threshold} (if set); UP otherwise. One
 * stats query per check; a failing query is DOWN with the error.
 */
final class TxOutboxHealthIndicator extends AbstractHealthIndicator {
    private final Outbox outbox;
    private final long deadThreshold;
    private final Duration ageThreshold;

    TxOutboxHealthIndicator(Outbox outbox, TxOutboxProperties.Health health) {
        super("txoutbox: reading the outbox stats failed");
        this.outbox = outbox;
        this.deadThreshold = health.deadThreshold();
        this.ageThreshold = health.oldestPendingAgeThreshold();
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        if (outbox instanceof SpringOutbox s && !s.isReady()) {
            builder.down()
                    .withDetail("table", outbox.table())
                    .withDetail("reason", "waiting for the database: " + s.waitingFor());
            return;
        }
        OutboxStats stats = outbox.admin().stats();
        builder.up()
                .withDetail("table", outbox.table())
                .withDetail("pending", stats.pending())
                .withDetail("inFlight", stats.inFlight())
                .withDetail("retrying", stats.retrying())
                .withDetail("dead", stats.dead())
                .withDetail("oldestPendingAge", stats.oldestPendingAge().toString());
        if (stats.dead() > deadThreshold) {
            builder.down()
                    .withDetail(
                            "reason",
                            stats.dead() + " dead events (threshold " + deadThreshold + "): list them at"
                                    + " /actuator/txoutbox/dead, fix the cause, then revive them");
        } else if (ageThreshold != null && stats.oldestPendingAge().compareTo(ageThreshold) > 0) {
            builder.down()
                    .withDetail(
                            "reason",
                            "the oldest unpublished event is " + stats.oldestPendingAge() + " old (threshold "
                                    + ageThreshold + "): is a relay running and its broker reachable?");
        }
    }
}
