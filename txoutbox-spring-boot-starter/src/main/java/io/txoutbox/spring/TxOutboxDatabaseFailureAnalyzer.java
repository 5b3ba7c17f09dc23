package io.txoutbox.spring;

import io.txoutbox.OutboxStoreException;
import io.txoutbox.internal.admin.DatabaseFailure;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a database refusal met by txoutbox at start-up into Spring Boot's short report, with the
 * database's own words and SQLState (a missing database, a wrong password), and what to fix, chosen by
 * SQLState class.
 */
final class TxOutboxDatabaseFailureAnalyzer extends AbstractFailureAnalyzer<OutboxStoreException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, OutboxStoreException cause) {
        String state = cause.sqlState() == null ? "" : cause.sqlState();
        String action;
        if (state.startsWith("28")) {
            action = "Check the database user and password (spring.datasource.username, spring.datasource.password).";
        } else if (state.equals("3D000")) {
            action = "Check the database name in spring.datasource.url: the server has no such database.";
        } else if (DatabaseFailure.isUnavailability(cause)) {
            action = "The database cannot be reached. Start it, or keep txoutbox.startup.retry=true (the default) so"
                    + " that the application starts and waits for it.";
        } else {
            action = "Fix what the database reported in the description.";
        }
        return new FailureAnalysis("txoutbox could not start: " + cause.getMessage(), action, cause);
    }
}
