package io.txoutbox;

import java.time.Instant;
import java.util.UUID;

/**
 * A dead event as the operations API lists it: enough to find the cause, without the payload.
 *
 * @param id the event id
 * @param aggregateType the kind of entity
 * @param aggregateId the entity's id
 * @param eventType what happened
 * @param eventVersion the payload schema version
 * @param tenantId the tenant, or {@code null}
 * @param attempts how many attempts were made
 * @param lastError the reason of the last failure
 * @param createdAt when the event was appended
 * @param heldBack in ordered mode with {@link DeadHeadPolicy#BLOCK}: how many later events of the same
 *     aggregate wait behind this one (0 otherwise)
 */
public record DeadEvent(
        UUID id,
        String aggregateType,
        String aggregateId,
        String eventType,
        int eventVersion,
        String tenantId,
        int attempts,
        String lastError,
        Instant createdAt,
        long heldBack) {}
