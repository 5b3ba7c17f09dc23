package io.txoutbox.server;

import io.txoutbox.Dialect;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxTable;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.admin.SettingNames;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.Relay;
import java.time.Duration;
import java.util.function.Function;

/**
 * The library's rules for a source, checked when the configuration is read, before any database is
 * reached: the table's name and the relay's settings go through the library's own builders ({@code
 * Outbox.Builder}, {@code Relay.Builder}, {@link Backoff}), and whatever they refuse is reported under
 * the YAML key it was set from ({@code Relay.Builder.batchSize} is {@code sources[0].relay.batch-size}),
 * in the library's words. The limits, the defaults and the messages live once, in the library; the
 * starter maps the same errors to its property names.
 */
final class LibraryChecks {
    private LibraryChecks() {}

    /**
     * @param sourceKey the source's key, {@code sources[0]}
     * @param name the source's name, which its relays are named after
     * @param table the outbox table
     * @param relay the relay settings
     * @throws ConfigException naming {@code sources[0].table} or the {@code sources[0].relay} key that the
     *     library refuses
     */
    static void source(String sourceKey, String name, String table, ServerConfig.Relay relay) {
        try {
            OutboxTable.of(table);
            relay.configure(Relay.settings()).name(name).validate();
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
     * @param key the backoff's key, {@code sources[0].relay.backoff}
     * @return the backoff, checked by the library
     * @throws ConfigException naming the key under {@code key} that the library refuses
     */
    static Backoff backoff(String key, Duration base, double factor, Duration max, boolean jitter) {
        try {
            return new Backoff(base, factor, max, jitter);
        } catch (OutboxValidationException e) {
            throw keyed(
                    e,
                    key,
                    setting -> setting.startsWith("Backoff.")
                            ? key + "." + (setting.equals("Backoff.fullJitter") ? "jitter" : yaml(setting))
                            : null);
        }
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
        if (setting.equals("Relay.Builder.name")) {
            return sourceKey + ".name";
        }
        if (setting.startsWith("Relay.Builder.")) {
            return sourceKey + ".relay." + yaml(setting);
        }
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
