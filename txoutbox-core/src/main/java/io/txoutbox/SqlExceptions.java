package io.txoutbox;

import java.sql.BatchUpdateException;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLNonTransientException;
import java.sql.SQLRecoverableException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The one place where {@link SQLException}s become {@link OutboxStoreException}s, and the one place
 * where driver text enters a txoutbox message; that text passes through {@link Redaction}. Reached through {@link OutboxStoreException#of} and
 * {@link OutboxStoreException#describe}, so that the store, the inbox and integrations all convert the
 * same way.
 *
 * <p>Transient failures are recognised by SQLState class (never by message text): connection
 * exceptions (08), transaction rollbacks such as serialization failures and deadlocks (40), insufficient
 * resources (53), operator intervention such as a server shutdown or a terminated backend (57), and
 * lock-not-available (55P03).
 *
 * <p>Drivers put the values of a statement into their messages: pgjdbc's batch message carries the
 * statement with every parameter ({@code Batch entry 0 INSERT … ('\x7b…'::bytea, …) was aborted}),
 * PostgreSQL's {@code Detail:} carries the key ({@code Key (id)=(…)}) or the whole row ({@code Failing
 * row contains (…)}), MariaDB's duplicate-key message quotes the key ({@code Duplicate entry '…'}), and
 * its {@code Query is:} suffix and H2's {@code SQL statement:} suffix carry the statement. So driver text
 * is kept only for SQLState classes that describe the connection, the server, the schema or a lock
 * (08, 28, 3D, 3F, 40, 42, 53, 55, 57, 58, HYT00, and a connection exception without a state, as a
 * pool's timeout is), and only its first line, cut before any statement
 * text; for data and constraint errors (22, 23) and every other class the message is the SQLState, the
 * vendor code and a description of the state.
 *
 * <p>The driver's exception is not kept as the cause, because a printed stack trace prints the cause's
 * message. The cause is a sanitized copy instead: an exception of the same {@code java.sql} family
 * (so {@code instanceof SQLTransientConnectionException} and the like still hold), with the same
 * SQLState, vendor code and stack trace, and the sanitized message; its causes and next exceptions are
 * sanitized the same way. What is lost is the driver's own exception class (for example {@code
 * PSQLException}) and the values: the price of never printing a payload or a header value.
 */
final class SqlExceptions {
    /** SQLState classes whose driver text describes the connection, server, schema or a lock, never row data. */
    private static final Set<String> TEXT_KEPT = Set.of("08", "28", "3D", "3F", "40", "42", "53", "55", "57", "58");

    /** Where drivers start echoing the statement: everything from here on is cut. */
    private static final String[] STATEMENT_MARKERS = {
        "query is:", "sql statement:", "parameters [", "parameters:", " near '", "detail:", "where:", "hint:"
    };

    private static final int MAX_TEXT = 300;

    private SqlExceptions() {}

    /**
     * @param operation what txoutbox was doing, for example {@code claim}
     * @param table the table it was doing it on
     * @param e the driver's exception
     * @return the exception to throw: its message, its cause chain and its stack trace hold no value of
     *     the statement
     */
    static OutboxStoreException translate(String operation, String table, SQLException e) {
        String state = e.getSQLState();
        boolean isTransient = isTransient(e);
        String message = "txoutbox " + operation + " on table '" + table + "' failed: " + describe(e) + " (SQLState "
                + state + (isTransient ? ", transient" : "") + ")";
        return new OutboxStoreException(operation, state, isTransient, message, sanitize(e));
    }

    /**
     * @param e a driver exception
     * @return whether the same operation may succeed if retried
     */
    static boolean isTransient(SQLException e) {
        if (e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null || state.length() < 2) {
            return false;
        }
        String cls = state.substring(0, 2);
        return cls.equals("08")
                || cls.equals("40")
                || cls.equals("53")
                || cls.equals("57")
                || state.equals("55P03")
                || state.equals("HYT00");
    }

    /**
     * What may be said of a driver exception without any value of the statement: for a batch, the
     * exception behind it ({@link SQLException#getNextException()}) where the driver gives one.
     *
     * @param e a driver exception
     * @return a one-line description with no statement values
     */
    static String describe(SQLException e) {
        SQLException shown = e;
        if (e instanceof BatchUpdateException && e.getNextException() != null) {
            shown = e.getNextException();
        }
        return safeText(shown);
    }

    /** @return the driver's first line where its state class is known to carry no values, else a description */
    static String safeText(SQLException e) {
        String state = e.getSQLState();
        boolean connection =
                e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException;
        String kept =
                keepsText(state) || (state == null && connection) ? firstLineWithoutStatement(e.getMessage()) : null;
        if (kept != null && !kept.isBlank()) {
            // Connection errors quote the URL or the host the driver was given, which may hold a password.
            return Redaction.redact(kept);
        }
        String vendor = e.getErrorCode() == 0 ? "" : " (vendor code " + e.getErrorCode() + ")";
        return describeState(state, e.getErrorCode()) + vendor;
    }

    private static boolean keepsText(String state) {
        if (state == null || state.length() < 2) {
            return false;
        }
        return TEXT_KEPT.contains(state.substring(0, 2).toUpperCase(Locale.ROOT)) || state.equals("HYT00");
    }

    static String firstLineWithoutStatement(String message) {
        if (message == null) {
            return null;
        }
        String text = message;
        int newline = indexOfLineBreak(text);
        if (newline >= 0) {
            text = text.substring(0, newline);
        }
        // pgjdbc: "Batch entry 0 <statement with values> was aborted: <reason>"
        if (text.startsWith("Batch entry ")) {
            int aborted = text.indexOf(" was aborted");
            text = aborted < 0 ? "" : "batch entry aborted" + text.substring(aborted + " was aborted".length());
        }
        String lower = text.toLowerCase(Locale.ROOT);
        int cut = text.length();
        for (String marker : STATEMENT_MARKERS) {
            int at = lower.indexOf(marker);
            if (at >= 0 && at < cut) {
                cut = at;
            }
        }
        text = text.substring(0, cut).strip();
        if (text.endsWith(";") || text.endsWith(",")) {
            text = text.substring(0, text.length() - 1);
        }
        return text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "…" : text;
    }

    private static int indexOfLineBreak(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n' || c == '\r') {
                return i;
            }
        }
        return -1;
    }

    /** Descriptions of the states txoutbox meets, by SQLState, and by MariaDB's vendor code under 23000. */
    static String describeState(String state, int vendorCode) {
        if (state == null) {
            return "the database reported an error without an SQLState";
        }
        if (state.equals("23000")) {
            switch (vendorCode) {
                case 1062, 1586:
                    return "duplicate key: a row with this key is already in the table";
                case 1048:
                    return "NULL in a NOT NULL column";
                case 4025, 3819:
                    return "a check constraint refused the row";
                case 1451, 1452:
                    return "a foreign key refused the row";
                default:
                    return "an integrity constraint refused the row";
            }
        }
        return switch (state) {
            case "23505" -> "duplicate key: a row with this key is already in the table";
            case "23502" -> "NULL in a NOT NULL column";
            case "23514", "23513" -> "a check constraint refused the row";
            case "23503", "23506" -> "a foreign key refused the row";
            case "22001" -> "a value is too long for its column";
            case "22003" -> "a number is out of the range of its column";
            case "22007", "22008" -> "a date or time is out of range or malformed";
            case "22021" -> "a character is not valid in the database's encoding";
            case "22P02", "22018" -> "a value is not valid for the type of its column";
            case "22P05" -> "a character cannot be converted to the database's encoding";
            default ->
                state.startsWith("23")
                        ? "an integrity constraint refused the row"
                        : state.startsWith("22")
                                ? "a value was refused by its column"
                                : "the database refused the operation";
        };
    }

    /**
     * @param e a driver exception
     * @return a copy of it and of its causes and next exceptions with sanitized messages, same {@code
     *     java.sql} family, SQLState, vendor code and stack trace
     */
    static SQLException sanitize(SQLException e) {
        return sanitize(e, new IdentityHashMap<>());
    }

    private static SQLException sanitize(SQLException e, Map<Throwable, SQLException> done) {
        SQLException seen = done.get(e);
        if (seen != null) {
            return seen;
        }
        String reason = e instanceof BatchUpdateException && e.getNextException() != null
                ? "batch refused: " + describe(e)
                : safeText(e);
        SQLException copy = sameFamily(e, reason);
        copy.setStackTrace(e.getStackTrace());
        done.put(e, copy);
        Throwable cause = e.getCause();
        if (cause instanceof SQLException sql) {
            copy.initCause(sanitize(sql, done));
        } else if (cause != null && isPlainIoFailure(cause) && saysNoSecret(cause)) {
            copy.initCause(cause);
        }
        SQLException next = e.getNextException();
        if (next != null && next != e) {
            copy.setNextException(sanitize(next, done));
        }
        return copy;
    }

    /** Socket and I/O failures name hosts and ports, never statement values. */
    private static boolean isPlainIoFailure(Throwable t) {
        String name = t.getClass().getName();
        return (name.startsWith("java.io.") || name.startsWith("java.net."))
                && (t.getCause() == null || isPlainIoFailure(t.getCause()));
    }

    /**
     * A socket failure quotes the host it was given: {@code UnknownHostException: user:password@host} when
     * a driver does not read user information from its URL. Such a cause is left out.
     */
    private static boolean saysNoSecret(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && !m.equals(Redaction.redact(m))) {
                return false;
            }
        }
        return true;
    }

    private static SQLException sameFamily(SQLException e, String reason) {
        String state = e.getSQLState();
        int code = e.getErrorCode();
        if (e instanceof BatchUpdateException batch) {
            return new BatchUpdateException(reason, state, code, batch.getUpdateCounts());
        }
        if (e instanceof SQLTransientConnectionException) {
            return new SQLTransientConnectionException(reason, state, code);
        }
        if (e instanceof SQLTimeoutException) {
            return new SQLTimeoutException(reason, state, code);
        }
        if (e instanceof SQLTransactionRollbackException) {
            return new SQLTransactionRollbackException(reason, state, code);
        }
        if (e instanceof SQLTransientException) {
            return new SQLTransientException(reason, state, code);
        }
        if (e instanceof SQLNonTransientConnectionException) {
            return new SQLNonTransientConnectionException(reason, state, code);
        }
        if (e instanceof SQLIntegrityConstraintViolationException) {
            return new SQLIntegrityConstraintViolationException(reason, state, code);
        }
        if (e instanceof SQLDataException) {
            return new SQLDataException(reason, state, code);
        }
        if (e instanceof SQLSyntaxErrorException) {
            return new SQLSyntaxErrorException(reason, state, code);
        }
        if (e instanceof SQLInvalidAuthorizationSpecException) {
            return new SQLInvalidAuthorizationSpecException(reason, state, code);
        }
        if (e instanceof SQLFeatureNotSupportedException) {
            return new SQLFeatureNotSupportedException(reason, state, code);
        }
        if (e instanceof SQLNonTransientException) {
            return new SQLNonTransientException(reason, state, code);
        }
        if (e instanceof SQLRecoverableException) {
            return new SQLRecoverableException(reason, state, code);
        }
        return new SQLException(reason, state, code);
    }
}
