package io.txoutbox.jdbc;

import io.txoutbox.OutboxTable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The PostgreSQL side of wake-ups, and every statement of it: the notification {@link PgNotifier} sends
 * after commit, what {@link PgListener} runs on its listening connection, the advisory locks by which idle
 * relays announce themselves to writers that are not txoutbox, and the optional trigger that reads them.
 *
 * <p>Appending through txoutbox never notifies inside the business transaction: a transaction that calls
 * {@code pg_notify} takes PostgreSQL's database-wide notification lock at commit, which serializes every
 * such commit. Programs that insert rows by hand (psql, services in other languages) cannot call {@code
 * Outbox#committed()}, so an opt-in trigger notifies for them, but only while some relay is idle:
 *
 * <ul>
 *   <li>An idle relay holds the <em>idle</em> lock of the table in shared mode, on its listening
 *       connection (session level). A busy relay does not.
 *   <li>The trigger is a deferred constraint trigger: it runs at the writer's commit. It first takes the
 *       <em>commit</em> lock in shared mode for the rest of its transaction (held until the commit is
 *       visible, because PostgreSQL releases locks after it ends the transaction), then tries the idle
 *       lock in exclusive mode. The try fails only when a relay holds it: then, and only then, the
 *       writer notifies. When it succeeds it releases the lock at once. Both tries never wait.
 *   <li>A relay going idle first takes the idle lock, then takes and drops the commit lock in exclusive
 *       mode, which waits for every writer that checked before the announcement to finish its commit,
 *       and only then looks for rows once more before it sleeps. A writer that checks after the
 *       announcement sees the relay and notifies; a writer that checked before it is visible to that
 *       last look. While a relay waits for the commit lock, a writer's shared try fails, and it notifies:
 *       the safe side.
 * </ul>
 *
 * So no row inserted under the trigger waits for the poll interval, and busy relays cost writers two
 * lock-manager calls per transaction and no notification at all, unless the transaction's first row sits
 * more than {@link #LATE_HINT_MILLIS} behind its commit in the due index (the transaction was held open,
 * or the row has an old time): busy relays may have claimed past it, so then the trigger notifies too.
 *
 * <p>A notification's payload is a <em>hint</em>: empty, or where the committed transaction's rows sit in
 * the due index, their lowest {@code available_at} as seconds since the epoch in decimal ({@code
 * 1733123456.123456}), so that relays whose cursor is past it look behind at once, from there (see {@link
 * ClaimCursor}). Coalescing keeps the lowest hint. Anything else in a payload (the notification channel is
 * open to every session of the database) is a plain wake-up.
 */
final class PgWakeups {
    /** The advisory lock class (first key) of the idle lock: "TXOI". */
    static final int IDLE_CLASS = 0x54584F49;
    /** The advisory lock class of the commit lock: "TXOC". */
    static final int COMMIT_CLASS = 0x54584F43;

    private PgWakeups() {}

    /**
     * The second advisory lock key of a table: a stable hash of its notification channel, the same in
     * every JVM and in the trigger, which has it as a literal.
     *
     * @param channel the table's channel
     * @return the key
     */
    static int key(String channel) {
        CRC32 crc = new CRC32();
        crc.update(channel.getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }

    /** @return the name of the optional trigger, without schema */
    static String triggerName(OutboxTable table) {
        return table.name() + "_wake";
    }

    /** @return the name of the trigger of txoutbox 0.1 that notified from every appending transaction */
    static String legacyTriggerName(OutboxTable table) {
        return table.name() + "_notify";
    }

    /** Counts the table's user triggers of a name; binds the qualified table name and the trigger name. */
    static final String TRIGGER_EXISTS =
            "SELECT count(*) AS n FROM pg_trigger WHERE tgrelid = to_regclass(?) AND tgname = ? AND NOT tgisinternal";

    // ---- the statements of the protocol, all PostgreSQL's ------------------------------------------

    /**
     * A row more than this far behind its commit in the due index makes the foreign-writer trigger notify
     * even while every relay is busy; rows less late are the near look-behind's ({@link
     * ClaimCursor#NEAR_RANGE}, which exceeds this by more than {@link ClaimCursor#NEAR_INTERVAL}).
     */
    static final long LATE_HINT_MILLIS = 100;

    /** The longest payload read as a hint. */
    private static final int MAX_HINT_CHARS = 32;

    private static final Pattern HINT = Pattern.compile("-?[0-9]{1,12}(\\.[0-9]{1,9})?");

    /**
     * Wakes the relays listening on a channel; binds the channel and the hint (or an empty text). Sent
     * after commit, never inside one.
     */
    static final String NOTIFY = "SELECT pg_notify(?, ?)";

    /**
     * @param availableAt where a committed transaction's rows sit, or {@code null}
     * @return the payload that says it: seconds since the epoch, to the microsecond (rounded down, so no
     *     row lies before it), or empty
     */
    static String formatHint(Instant availableAt) {
        if (availableAt == null) {
            return "";
        }
        return BigDecimal.valueOf(availableAt.getEpochSecond())
                .add(BigDecimal.valueOf(availableAt.getNano() / 1_000, 6))
                .toPlainString();
    }

    /**
     * @param payload a notification's payload, from anyone
     * @return the hint it carries, or {@code null} for a plain wake-up (empty, malformed, too long); never
     *     throws
     */
    static Instant parseHint(String payload) {
        if (payload == null || payload.isEmpty() || payload.length() > MAX_HINT_CHARS) {
            return null;
        }
        if (!HINT.matcher(payload).matches()) {
            return null;
        }
        try {
            BigDecimal seconds = new BigDecimal(payload);
            BigDecimal whole = seconds.setScale(0, RoundingMode.FLOOR);
            long nanos = seconds.subtract(whole).movePointRight(9).longValue();
            return Instant.ofEpochSecond(whole.longValueExact(), nanos);
        } catch (ArithmeticException | DateTimeException e) {
            return null;
        }
    }

    /** A round trip that notices a connection that died silently. */
    static final String PING = "SELECT 1";

    /** Forgets the connection's application name, before it goes back to the pool. */
    static final String RESET_APPLICATION_NAME = "RESET application_name";

    /** Forgets the lock timeout of the listening connection. */
    static final String RESET_LOCK_TIMEOUT = "RESET lock_timeout";

    /** @return names the connection in {@code pg_stat_activity}; the name is txoutbox's own, not input */
    static String setApplicationName(String name) {
        return "SET application_name = '" + name + "'";
    }

    /** @return bounds how long the listening connection waits for a lock */
    static String setLockTimeout(String timeout) {
        return "SET lock_timeout = '" + timeout + "'";
    }

    /** @return listens on a channel (a validated identifier) */
    static String listen(String channel) {
        return "LISTEN " + channel;
    }

    /** @return stops listening on a channel */
    static String unlisten(String channel) {
        return "UNLISTEN " + channel;
    }

    /** @return announces an idle relay: takes the table's idle lock in shared mode */
    static String lockIdle(int key) {
        return "SELECT pg_advisory_lock_shared(" + IDLE_CLASS + ", " + key + ")";
    }

    /** @return ends the announcement: lets the idle lock go */
    static String unlockIdle(int key) {
        return "SELECT pg_advisory_unlock_shared(" + IDLE_CLASS + ", " + key + ")";
    }

    /**
     * @return takes and drops the commit lock in exclusive mode: waits for every writer that checked for
     *     idle relays before the announcement to finish its commit
     */
    static String drainCommits(int key) {
        return "SELECT pg_advisory_lock(" + COMMIT_CLASS + ", " + key + "), pg_advisory_unlock(" + COMMIT_CLASS + ", "
                + key + ")";
    }

    /**
     * @param template the trigger's DDL template
     * @param table the table
     * @return the DDL with the table's lock key filled in
     */
    static String render(String template, OutboxTable table) {
        int key = key(table.channel());
        return template.replace("{idle_class}", Integer.toString(IDLE_CLASS))
                .replace("{late_ms}", Long.toString(LATE_HINT_MILLIS))
                .replace("{commit_class}", Integer.toString(COMMIT_CLASS))
                .replace("{key}", Integer.toString(key));
    }
}
