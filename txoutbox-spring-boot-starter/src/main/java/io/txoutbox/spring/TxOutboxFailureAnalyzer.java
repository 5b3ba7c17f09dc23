package io.txoutbox.spring;

import io.txoutbox.OutboxValidationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an invalid txoutbox setting at start-up into Spring Boot's short "fix this property" report. */
final class TxOutboxFailureAnalyzer extends AbstractFailureAnalyzer<OutboxValidationException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, OutboxValidationException cause) {
        String field = cause.field();
        String action = field != null && field.startsWith("txoutbox.")
                ? "Fix the property " + field + (cause.limit() == null ? "" : " (allowed: " + cause.limit() + ")") + "."
                : "Fix the txoutbox setting named in the description.";
        return new FailureAnalysis("txoutbox could not start: " + cause.getMessage(), action, cause);
    }
}
