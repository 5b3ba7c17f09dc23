package io.txoutbox.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * How a relay marks one claimed row: published, pending again from {@code availableAt}, or dead.
 *
 * @param id the event id
 * @param outcome the new state: {@link Outcome#PUBLISHED}, {@link Outcome#RETRY} or {@link Outcome#DEAD}
 * @param availableAt for a retry, when the row becomes due again; otherwise ignored
 * @param error the reason to keep as the row's last error, or {@code null}
 */
public record Completion(UUID id, Outcome outcome, Instant availableAt, String error) {
    /** Checks that a retry says when. */
    public Completion {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(outcome, "outcome");
        if (outcome == Outcome.RETRY) {
            Objects.requireNonNull(availableAt, "availableAt of a retry");
        }
    }
}
