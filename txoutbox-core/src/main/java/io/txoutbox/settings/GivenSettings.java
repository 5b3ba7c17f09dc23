package io.txoutbox.settings;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a builder holds of its settings before {@code build()} checks them: the values given, and how a
 * refusal is to name each. Values adopted from a front end's checked settings keep that front end's
 * spelling ({@code txoutbox.relay.batch-size}); a value set in Java afterwards is named in Java ({@code
 * Relay.Builder.batchSize}). Every builder of the library keeps one, so that this bookkeeping is written
 * once. Not thread-safe, like the builders.
 */
public final class GivenSettings {
    private final List<Setting<?>> settings;
    private final Spelling java;
    private final String owner;
    private final SettingValues values = new SettingValues();
    private final Map<Setting<?>, String> setInJava = new HashMap<>();
    private Spelling spelling;

    /**
     * @param settings the settings the builder takes
     * @param java their Java spelling, the builder's
     * @param owner what the builder builds, for a refusal of a foreign setting: {@code a Kafka publisher}
     */
    public GivenSettings(List<Setting<?>> settings, Spelling java, String owner) {
        this.settings = List.copyOf(settings);
        this.java = Objects.requireNonNull(java, "java");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.spelling = java;
    }

    /**
     * Sets one setting in Java: a refusal of it names it in Java.
     *
     * @param setting one of the builder's settings
     * @param value its value; {@code null} for its default
     * @param <T> its type
     * @throws IllegalArgumentException when the setting is not one of the builder's
     */
    public <T> void set(Setting<T> setting, T value) {
        if (!settings.contains(setting)) {
            throw new IllegalArgumentException("'" + setting + "' is not a setting of " + owner);
        }
        values.set(setting, value);
        setInJava.put(setting, java.of(setting));
    }

    /**
     * Takes over the values of a front end's checked settings, with the front end's spelling; what was set
     * in Java before is replaced.
     *
     * @param given the values as the front end gave them
     * @param spelled how the front end spelled them
     */
    public void adopt(SettingValues given, Spelling spelled) {
        values.setAll(given);
        spelling = Objects.requireNonNull(spelled, "spelled");
        setInJava.clear();
    }

    /** @return the values given (the builder's own, not a copy) */
    public SettingValues values() {
        return values;
    }

    /** @return how a refusal names each setting: as its front end gave it, or in Java where Java set it */
    public Spelling spelling() {
        return spelling.except(setInJava);
    }
}
