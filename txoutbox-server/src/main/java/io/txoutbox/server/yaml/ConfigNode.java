package io.txoutbox.server.yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.txoutbox.Redaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One mapping of the YAML configuration, read key by key. Every read names its full key in errors
 * ({@code sources[0].relay.batch-size: expected an integer, got 'ten'}), string values go through
 * {@code ${ENV}} substitution, and {@link #rejectUnknown()} names any key nobody read, so a typo never
 * passes silently.
 */
public final class ConfigNode {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?}");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    /**
     * The longest duration any key accepts: longer ones are typos or overflows (a lease of a million
     * years is no lease), and past it the database's interval arithmetic would fail at run time.
     */
    static final Duration MAX_DURATION = Duration.ofDays(36_525);

    private final JsonNode node;
    private final String path;
    private final Function<String, String> env;
    private final Set<String> read = new LinkedHashSet<>();

    private ConfigNode(JsonNode node, String path, Function<String, String> env) {
        this.node = node;
        this.path = path;
        this.env = env;
    }

    /**
     * @param node the document's root, a mapping
     * @param env looks up environment variables for {@code ${NAME}} placeholders
     */
    public static ConfigNode root(JsonNode node, Function<String, String> env) {
        JsonNode root = node == null || node.isMissingNode() || node.isNull() ? MissingNode.getInstance() : node;
        if (!root.isMissingNode() && !root.isObject()) {
            throw new ConfigException("(root)", "expected a mapping of keys (admin:, sources:), got " + kind(root));
        }
        return new ConfigNode(root, "", env);
    }

    /** @return an empty mapping at a key, for a section given by name only */
    public static ConfigNode empty(String path) {
        return new ConfigNode(MissingNode.getInstance(), path, n -> null);
    }

    /** @return the full key of a child, e.g. {@code sources[0].table} */
    public String key(String child) {
        return path.isEmpty() ? child : path + "." + child;
    }

    /** @return this mapping's own key */
    public String path() {
        return path.isEmpty() ? "(root)" : path;
    }

    public boolean has(String key) {
        JsonNode v = node.get(key);
        return v != null && !v.isNull();
    }

    private JsonNode raw(String key) {
        read.add(key);
        JsonNode v = node.get(key);
        return v == null || v.isNull() ? null : v;
    }

    /** @return the value as text after {@code ${ENV}} substitution, or {@code null} when absent */
    private String scalar(String key) {
        JsonNode v = raw(key);
        if (v == null) {
            return null;
        }
        if (!v.isValueNode()) {
            throw new ConfigException(key(key), "expected a single value, got " + kind(v));
        }
        return learn(key, substitute(key(key), v.asText()));
    }

    /**
     * Every value read passes here, so that the redaction path knows the configuration's secrets before
     * any of them can reach a message: a value under a credential's name ({@code password}, {@code token},
     * {@code secret}, {@code Authorization}, {@code ssl.keystore.password}), and the password inside any URL.
     */
    private static String learn(String key, String value) {
        if (Redaction.isCredentialName(key)) {
            Redaction.register(value);
        }
        Redaction.registerUrl(value);
        return value;
    }

    public String string(String key, String defaultValue) {
        String v = scalar(key);
        return v == null ? defaultValue : v;
    }

    public String requiredString(String key) {
        String v = scalar(key);
        if (v == null || v.isBlank()) {
            throw new ConfigException(key(key), "is required");
        }
        return v;
    }

    public Secret secret(String key) {
        String v = scalar(key);
        return v == null ? null : new Secret(v);
    }

    public int integer(String key, int defaultValue, int min, int max) {
        Long v = optionalLong(key);
        if (v == null) {
            return defaultValue;
        }
        if (v < min || v > max) {
            throw new ConfigException(key(key), v + " is out of range; it must be between " + min + " and " + max);
        }
        return v.intValue();
    }

    /**
     * An integer whose range the library checks (the server maps the library's error to the key).
     *
     * @return the value, or {@code null} when absent
     * @throws ConfigException when it is not an integer, or does not fit in 32 bits
     */
    public Integer optionalInteger(String key) {
        Long v = optionalLong(key);
        if (v == null) {
            return null;
        }
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new ConfigException(
                    key(key),
                    v + " is too large; it must be between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE);
        }
        return v.intValue();
    }

    /**
     * @return the value, or {@code null} when absent
     * @throws ConfigException when it is not an integer, or does not fit in 64 bits
     */
    Long optionalLong(String key) {
        String v = scalar(key);
        if (v == null) {
            return null;
        }
        String t = v.strip();
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            if (t.matches("[-+]?\\d+")) {
                throw new ConfigException(
                        key(key),
                        "'" + v + "' is too large; it must be between " + Long.MIN_VALUE + " and " + Long.MAX_VALUE);
            }
            throw new ConfigException(key(key), "expected an integer, got '" + v + "'");
        }
    }

    public boolean bool(String key, boolean defaultValue) {
        Boolean v = optionalBool(key);
        return v == null ? defaultValue : v;
    }

    /** @return the value, or {@code null} when absent (a setting whose default is the library's) */
    Boolean optionalBool(String key) {
        String v = scalar(key);
        if (v == null) {
            return null;
        }
        return switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new ConfigException(key(key), "expected true or false, got '" + v + "'");
        };
    }

    /**
     * A duration: a number with a unit ({@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 7d}) or
     * ISO-8601 ({@code PT2S}).
     */
    public Duration duration(String key, Duration defaultValue) {
        String v = scalar(key);
        if (v == null) {
            return defaultValue;
        }
        try {
            return parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key(key), e.getMessage());
        }
    }

    /**
     * @param text {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 7d} or ISO-8601 ({@code PT2S})
     * @return the duration, at most {@link #MAX_DURATION}
     * @throws IllegalArgumentException saying what is wrong with the text (never a bare number error)
     */
    public static Duration parseDuration(String text) {
        String v = text.strip();
        Matcher m = DURATION.matcher(v);
        Duration d;
        if (m.matches()) {
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException tooManyDigits) {
                throw tooLong(text);
            }
            long perUnit =
                    switch (m.group(2)) {
                        case "ms" -> 1L;
                        case "s" -> 1_000L;
                        case "m" -> 60_000L;
                        case "h" -> 3_600_000L;
                        default -> 86_400_000L;
                    };
            if (n > MAX_DURATION.toMillis() / perUnit) {
                throw tooLong(text);
            }
            d = Duration.ofMillis(n * perUnit);
        } else {
            try {
                d = Duration.parse(v);
            } catch (RuntimeException e) {
                // DateTimeParseException, or ArithmeticException for an ISO value past Long.MAX_VALUE seconds.
                boolean iso = v.regionMatches(true, 0, "P", 0, 1) || v.regionMatches(true, 0, "-P", 0, 2);
                if (iso && e instanceof ArithmeticException) {
                    throw tooLong(text);
                }
                throw new IllegalArgumentException(
                        "expected a duration such as 500ms, 2s, 5m, 1h, 7d or PT2S, got '" + text + "'");
            }
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw tooLong(text);
        }
        return d;
    }

    private static IllegalArgumentException tooLong(String text) {
        return new IllegalArgumentException("'" + text + "' is too long; the longest duration accepted is "
                + MAX_DURATION.toDays() + "d (100 years)");
    }

    /** A list of strings; a single string counts as a list of one. */
    public List<String> strings(String key) {
        JsonNode v = raw(key);
        List<String> out = new ArrayList<>();
        if (v == null) {
            return out;
        }
        if (v.isValueNode()) {
            out.add(substitute(key(key), v.asText()));
            return out;
        }
        if (!v.isArray()) {
            throw new ConfigException(key(key), "expected a list of strings, got " + kind(v));
        }
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (!item.isValueNode() || item.isNull()) {
                throw new ConfigException(key(key) + "[" + i + "]", "expected a string, got " + kind(item));
            }
            out.add(learn(key, substitute(key(key) + "[" + i + "]", item.asText())));
        }
        return out;
    }

    /** A mapping of string to string, e.g. fixed headers. */
    public Map<String, String> stringMap(String key) {
        ConfigNode child = object(key);
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : child.keys()) {
            out.put(name, child.requiredString(name));
        }
        return out;
    }

    /** The mapping under a key; an empty mapping when the key is absent. */
    public ConfigNode object(String key) {
        JsonNode v = raw(key);
        if (v == null) {
            return new ConfigNode(MissingNode.getInstance(), key(key), env);
        }
        if (!v.isObject()) {
            throw new ConfigException(key(key), "expected a mapping of keys, got " + kind(v));
        }
        return new ConfigNode(v, key(key), env);
    }

    /** The list of mappings under a key; empty when the key is absent. */
    public List<ConfigNode> objects(String key) {
        JsonNode v = raw(key);
        List<ConfigNode> out = new ArrayList<>();
        if (v == null) {
            return out;
        }
        if (!v.isArray()) {
            throw new ConfigException(key(key), "expected a list (each item starting with '- '), got " + kind(v));
        }
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            String itemKey = key(key) + "[" + i + "]";
            if (!item.isObject()) {
                throw new ConfigException(itemKey, "expected a mapping of keys, got " + kind(item));
            }
            out.add(new ConfigNode(item, itemKey, env));
        }
        return out;
    }

    /** @return whether the value under a key is a single value (not a mapping or a list) */
    public boolean isScalar(String key) {
        JsonNode v = node.get(key);
        return v != null && v.isValueNode() && !v.isNull();
    }

    /** @return the keys of this mapping, in file order (all of them count as read) */
    public List<String> keys() {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            read.add(k);
            out.add(k);
        }
        return out;
    }

    /** @return whether the mapping is absent or has no keys */
    boolean isEmpty() {
        return node.isMissingNode() || node.size() == 0;
    }

    /** @return the keys asked for so far, present or not: the keys this mapping knows */
    public Set<String> readKeys() {
        return Set.copyOf(read);
    }

    /**
     * Passes a value the file gives on to a builder; one it leaves out is not set, so the library's default
     * applies.
     *
     * @param value the value, or {@code null} when the file does not give it
     * @param setter the builder's setter
     */
    public static <T> void ifGiven(T value, Consumer<? super T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    /**
     * @throws ConfigException naming the first key that no reader asked for, and the keys that are known
     */
    public void rejectUnknown() {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!read.contains(k)) {
                throw new ConfigException(key(k), "unknown key; known keys here: " + String.join(", ", read));
            }
        }
    }

    private String substitute(String key, String value) {
        Matcher m = PLACEHOLDER.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String v = env.apply(name);
            if (v == null) {
                v = m.group(3);
            }
            if (v == null) {
                throw new ConfigException(
                        key,
                        "environment variable " + name + " is not set (give a default with ${" + name + ":-default})");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(v));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String kind(JsonNode v) {
        if (v.isObject()) {
            return "a mapping";
        }
        if (v.isArray()) {
            return "a list";
        }
        return "'" + v.asText() + "'";
    }
}
