package io.txoutbox.server.yaml;

import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the library's settings from a YAML section through their descriptors: each under its key ({@link
 * Setting#key()}), as its type says. The library's rules check the values afterwards and name a refused
 * setting by the key given here; what is read here is only the text's type.
 */
public final class SettingReader {
    private SettingReader() {}

    /**
     * Reads a library setting under its key ({@link Setting#key()}) as its type says.
     *
     * @param setting the setting's descriptor
     * @param <T> its type
     * @return the value, or {@code null} when absent (the descriptor's default and rules apply later)
     * @throws ConfigException naming the key when the text is not of the setting's type
     */
    static <T> T value(ConfigNode node, Setting<T> setting) {
        String key = setting.key();
        Class<T> type = setting.type();
        Object v;
        if (type == Integer.class) {
            v = node.optionalInteger(key);
        } else if (type == Long.class) {
            v = node.optionalLong(key);
        } else if (type == Boolean.class) {
            v = node.optionalBool(key);
        } else if (type == Duration.class) {
            v = node.duration(key, null);
        } else if (type == String.class) {
            v = node.string(key, null);
        } else if (type == Double.class) {
            v = optionalDouble(node, key);
        } else if (type.isEnum()) {
            v = optionalEnum(node, key, type);
        } else {
            throw new IllegalStateException("no YAML reading for a " + type.getSimpleName() + " setting: " + key);
        }
        return type.cast(v);
    }

    /**
     * @param settings library settings
     * @return the values given under their keys; absent keys stay unset
     * @throws ConfigException naming the key whose text is not of its setting's type
     */
    public static SettingValues values(ConfigNode node, List<Setting<?>> settings) {
        SettingValues values = new SettingValues();
        for (Setting<?> s : settings) {
            put(node, values, s);
        }
        return values;
    }

    private static <T> void put(ConfigNode node, SettingValues values, Setting<T> setting) {
        values.set(setting, value(node, setting));
    }

    /** @return the constant named (in any case), or {@code null} when absent */
    private static Object optionalEnum(ConfigNode node, String key, Class<?> type) {
        String v = node.string(key, null);
        if (v == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (Object c : type.getEnumConstants()) {
            String constant = ((Enum<?>) c).name();
            if (constant.equalsIgnoreCase(v.strip())) {
                return c;
            }
            names.add(constant.toLowerCase(Locale.ROOT));
        }
        throw new ConfigException(node.key(key), "expected one of " + String.join(", ", names) + ", got '" + v + "'");
    }

    /** @return the value, or {@code null} when absent */
    private static Double optionalDouble(ConfigNode node, String key) {
        String v = node.string(key, null);
        if (v == null) {
            return null;
        }
        try {
            return Double.parseDouble(v.strip());
        } catch (NumberFormatException e) {
            throw new ConfigException(node.key(key), "expected a number such as 2 or 1.5, got '" + v + "'");
        }
    }
}
