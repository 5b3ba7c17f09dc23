package io.txoutbox.server;

import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.admin.SettingNames;
import java.time.Duration;
import java.util.function.Function;

/**
 * The library's rules for a source, checked when the configuration is read, before any database is
 * reached: the table's name and the outbox's settings go through the library's own builder ({@code
 * Outbox.Builder}), and whatever it refuses is reported under the YAML key it was set from, in the
 * library's words. The relay's settings are read through their descriptors and need no renaming
 * ({@code ConfigLoader}).
 */
final class LibraryChecks {
    private LibraryChecks() {}

    /**
     * @param sourceKey the source's key, {@code sources[0]}
     * @param table the outbox table
     * @throws ConfigException naming {@code sources[0].table} when the library refuses the name
     */
    static void table(String sourceKey, String table) {
        try {
            OutboxTable.of(table);
        } catch (OutboxValidationException e) {
            throw refused(e, sourceKey);
        }
    }

    /**
     * The outbox's settings the YAML gives that the library rules on before a database is reached (the
     * dialect is checked again once detected, when the outbox is built).
     *
     * @param sourceKey the source's key, {@code sources[0]}
     * @param table the outbox table
     * @param dialect the dialect's name, or {@code auto}
     * @param publishedPartitions the width of the periods of published rows, or {@code null}
     * @throws ConfigException naming {@code sources[0].published-partitions} when the library refuses it
     */
    static void outbox(String sourceKey, String table, String dialect, Duration publishedPartitions) {
        if (publishedPartitions == null) {
            return;
        }
        Outbox.Builder b = Outbox.builder(null).table(table).publishedPartitions(publishedPartitions);
        if (!"auto".equalsIgnoreCase(dialect)) {
            b.dialect(Dialect.named(dialect));
        }
        try {
            b.validate();
        } catch (OutboxValidationException e) {
            throw refused(e, sourceKey);
        }
    }

    /**
     * @param e what the library refused of a source's outbox or relay
     * @param sourceKey the source's key, {@code sources[0]}
     * @return the refusal under the key of its setting
     */
    static ConfigException refused(OutboxValidationException e, String sourceKey) {
        return keyed(e, sourceKey, setting -> sourceKey(sourceKey, setting));
    }

    /**
     * @param e the library's refusal
     * @param section the key to name when the setting is none of {@code keys}'
     * @param keys the YAML key a library setting is set from, or {@code null} when none is
     * @return the refusal under the key of its setting, with every setting it mentions renamed to its key
     *     ({@code sources[0].relay.lease-duration: (30000 ms) must be longer than
     *     sources[0].relay.publish-timeout (40000 ms): ...})
     */
    static ConfigException keyed(OutboxValidationException e, String section, Function<String, String> keys) {
        String field = e.field();
        String key = field == null ? null : keys.apply(field);
        String text = SettingNames.rename(e.getMessage(), keys);
        if (key == null) {
            return new ConfigException(section, text, e);
        }
        // The key leads the line already: the message need not name it again.
        for (String lead : new String[] {key, field}) {
            if (text.startsWith(lead + " ")) {
                text = text.substring(lead.length() + 1);
                break;
            }
        }
        // "(30000 ms) must be longer than ..." after the key reads as "30000 ms must be longer than ...".
        return new ConfigException(key, text.replaceFirst("^\\(([^()]*)\\) ", "$1 "), e);
    }

    /** @return the key under {@code sources[i]} that a library setting of a source is set from */
    private static String sourceKey(String sourceKey, String setting) {
        if (setting.equals("Outbox.Builder.publishedPartitions")) {
            return sourceKey + ".published-partitions";
        }
        // The table's name is checked as Outbox.Builder.table, or as the starter's txoutbox.table.
        if (setting.startsWith("Outbox.Builder.table") || setting.startsWith("txoutbox.table")) {
            return sourceKey + ".table";
        }
        return null;
    }

    private static String yaml(String setting) {
        return SettingNames.kebab(SettingNames.field(setting));
    }
}
