package io.txoutbox.jdbc;

import io.txoutbox.OutboxTable;
import java.nio.charset.StandardCharsets;
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
 * lock-manager calls per transaction and no notification at all.
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

    /** Wakes the relays listening on a channel; binds the channel. Sent after commit, never inside one. */
    static final String NOTIFY = "SELECT pg_notify(?, '')";

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
                .replace("{commit_class}", Integer.toString(COMMIT_CLASS))
                .replace("{key}", Integer.toString(key));
    }
}
