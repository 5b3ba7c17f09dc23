package io.txoutbox.spring;

import io.txoutbox.Outbox;

/**
 * Adjusts the outbox builder after the {@code txoutbox.*} properties were applied and before the outbox
 * is built: for settings that are not properties (column names for Debezium, dialect, clock). Define it
 * as a bean; several run in their {@code @Order}.
 */
@FunctionalInterface
public interface OutboxCustomizer {
    /** @param builder the outbox's builder, with the properties applied */
    void customize(Outbox.Builder builder);
}
