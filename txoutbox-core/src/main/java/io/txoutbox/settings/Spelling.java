package io.txoutbox.settings;

import java.util.Map;
import java.util.Objects;

/**
 * How a front end spells a setting's name, so that a refusal names the setting as the user wrote it:
 * {@code Relay.Builder.batchSize} in Java, {@code txoutbox.relay.batch-size} in Spring, {@code
 * sources[0].relay.batch-size} in the relay server's YAML. The binder that read the value knows its
 * spelling; no message is rewritten afterwards.
 */
@FunctionalInterface
public interface Spelling {

    /**
     * @param setting a setting
     * @return its name as this front end spells it
     */
    String of(Setting<?> setting);

    /**
     * @param owner the Java type that sets it: {@code Relay.Builder}
     * @return the Java spelling, {@code Relay.Builder.batchSize}
     */
    static Spelling java(String owner) {
        Objects.requireNonNull(owner, "owner");
        return s -> owner + "." + s.name();
    }

    /**
     * @param prefix the key of the section: {@code txoutbox.relay}, {@code sources[0].relay}
     * @return the key spelling, {@code txoutbox.relay.batch-size}
     */
    static Spelling keys(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return s -> prefix + "." + s.key();
    }

    /**
     * @param spelled settings this front end sets from elsewhere, with their names there: the server names a
     *     relay after its source, {@code sources[0].name}
     * @return this spelling, except for those settings
     */
    default Spelling except(Map<Setting<?>, String> spelled) {
        Map<Setting<?>, String> copy = Map.copyOf(spelled);
        return s -> copy.containsKey(s) ? copy.get(s) : of(s);
    }
}
