package io.txoutbox.internal.admin;

import io.txoutbox.Redaction;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tells a database that is not reachable yet (worth waiting for) from one that refuses the
 * configuration (worth failing for), by SQLState class, never by message text: connection exceptions
 * ({@code 08}), operator intervention such as a shutdown or a terminated backend ({@code 57P}) and
 * insufficient resources such as too many connections ({@code 53}) are unavailability. Anything else
 * with an SQLState, a wrong password ({@code 28}) or a missing database ({@code 3D000}) among them, is a
 * configuration error. A failure with no SQLState at all counts as unavailability when it is an {@link
 * SQLException} without one (the driver or the pool lost the connection: Hikari's "Connection is closed"
 * after the backend was terminated, say) or a network exception of the JDK ({@code java.net}) caused it;
 * the database itself always names its refusals with an SQLState.
 *
 * <p>The relay server (a source that waits for its database) and the Spring starter (an outbox bean
 * that waits for its database) decide the same way, with this class.
 */
public final class DatabaseFailure {
    private DatabaseFailure() {}

    /**
     * @param e a failure met while connecting or checking the table
     * @return whether waiting for the database may make it go away
     */
    public static boolean isUnavailability(Throwable e) {
        String state = sqlState(e);
        if (state != null) {
            return state.startsWith("08") || state.startsWith("57P") || state.startsWith("53");
        }
        for (Throwable t : chain(e)) {
            if (t instanceof SQLException || t.getClass().getName().startsWith("java.net.")) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param e a failure
     * @return the database's own words: the message of the innermost {@link SQLException} that has an
     *     SQLState, with it ({@code FATAL: database "x" does not exist (SQLState 3D000)}); else the
     *     innermost failure's message; either through {@link Redaction}, because a driver that cannot parse
     *     its URL quotes it whole, password included
     */
    public static String reason(Throwable e) {
        SQLException sql = innermostSql(e);
        if (sql != null) {
            return Redaction.redact(sql.getMessage() + " (SQLState " + sql.getSQLState() + ")");
        }
        Throwable last = e;
        for (Throwable t : chain(e)) {
            last = t;
        }
        return Redaction.redact(
                last.getMessage() == null
                        ? last.getClass().getSimpleName()
                        : last.getClass().getSimpleName() + ": " + last.getMessage());
    }

    /** @return the SQLState of the innermost SQLException that has one, or {@code null} */
    public static String sqlState(Throwable e) {
        SQLException sql = innermostSql(e);
        return sql == null ? null : sql.getSQLState();
    }

    private static SQLException innermostSql(Throwable e) {
        SQLException found = null;
        for (Throwable t : chain(e)) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                found = s;
            }
        }
        return found;
    }

    /** The failure and its causes, outermost first, each once (a cause cycle ends the walk). */
    private static List<Throwable> chain(Throwable e) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        List<Throwable> ordered = new ArrayList<>();
        for (Throwable t = e; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            ordered.add(t);
        }
        return ordered;
    }
}
