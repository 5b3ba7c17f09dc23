package io.txoutbox.settings;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The settings a user gave, before they are checked: what a builder collects, or what a front end read
 * from its properties or YAML. Unset settings take their descriptor's default when the values are turned
 * into a validated settings value. Not thread-safe, like the builders that hold it.
 */
public final class SettingValues {
    private final Map<Setting<?>, Object> given = new LinkedHashMap<>();

    /** Empty: every setting at its default. */
    public SettingValues() {}

    /**
     * @param setting a setting
     * @param value its value; {@code null} unsets it (its default applies)
     * @param <T> its type
     * @return this
     */
    public <T> SettingValues set(Setting<T> setting, T value) {
        Objects.requireNonNull(setting, "setting");
        if (value == null) {
            given.remove(setting);
        } else {
            given.put(setting, setting.type().cast(value));
        }
        return this;
    }

    /**
     * @param other values to take over; theirs win
     * @return this
     */
    public SettingValues setAll(SettingValues other) {
        given.putAll(other.given);
        return this;
    }

    /**
     * @param setting a setting
     * @param <T> its type
     * @return the value given, or {@code null} when none was (not the default: see {@link #checked})
     */
    public <T> T given(Setting<T> setting) {
        return setting.type().cast(given.get(setting));
    }

    /**
     * @param setting a setting
     * @return whether a value was given
     */
    public boolean isSet(Setting<?> setting) {
        return given.containsKey(setting);
    }

    /**
     * @param setting a setting
     * @param spelling how the caller spells it, for a refusal
     * @param <T> its type
     * @return the value given or the default, checked by the setting's rules
     * @throws io.txoutbox.OutboxValidationException naming the setting in the caller's spelling
     */
    public <T> T checked(Setting<T> setting, Spelling spelling) {
        return setting.check(given(setting), spelling.of(setting));
    }

    /** @return a copy */
    public SettingValues copy() {
        return new SettingValues().setAll(this);
    }
}
