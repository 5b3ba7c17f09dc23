package io.txoutbox.settings;

import io.txoutbox.OutboxValidationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * One setting, declared once beside the code that uses it: its name, its type, its default, its rules
 * with their limits and one line of documentation. The Java builders, the Spring starter's properties and
 * the relay server's YAML all bind through the same descriptor, and the documentation's tables are
 * generated from it, so that the rules, the defaults and the docs cannot disagree.
 *
 * <p>A refusal names the setting as its caller spelled it: {@link #check(Object, String)} takes that
 * spelling ({@code Relay.Builder.batchSize}, {@code txoutbox.relay.batch-size}, {@code
 * sources[0].relay.batch-size}), so no front end rewrites a message.
 *
 * <pre>{@code
 * static final Setting<Integer> BATCH_SIZE = Setting.builder("batchSize", Integer.class)
 *         .defaultValue(100)
 *         .between(1, 10_000)
 *         .doc("Rows per claim.")
 *         .build();
 * }</pre>
 *
 * @param <T> the type of the setting's value
 */
public final class Setting<T> {
    private static final Pattern NAME = Pattern.compile("[a-z][A-Za-z0-9]*");

    private final String name;
    private final String key;
    private final Class<T> type;
    private final T defaultValue;
    private final String defaultText;
    private final boolean optional;
    private final List<Rule<T>> rules;
    private final String doc;

    private Setting(Builder<T> b) {
        this.name = b.name;
        this.key = b.key != null ? b.key : kebab(b.name);
        this.type = b.type;
        this.defaultValue = b.defaultValue;
        if (b.defaultText != null) {
            this.defaultText = b.defaultText;
        } else if (b.defaultValue == null) {
            this.defaultText = "none";
        } else {
            this.defaultText = b.defaultValue instanceof Duration d ? show(d) : b.defaultValue.toString();
        }
        this.optional = b.optional;
        this.rules = List.copyOf(b.rules);
        this.doc = b.doc;
    }

    /**
     * @param name the setting's Java name, camel case: {@code batchSize}
     * @param type the type of its value: {@code Integer}, {@code Long}, {@code Double}, {@code Boolean},
     *     {@code String}, {@code Duration}, an enum or {@code double[]}, the types the front ends read
     * @param <T> the type of its value
     * @return a builder of the descriptor
     */
    public static <T> Builder<T> builder(String name, Class<T> type) {
        return new Builder<>(name, type);
    }

    /** @return the setting's Java name, camel case: {@code batchSize} */
    public String name() {
        return name;
    }

    /** @return the setting's key in properties and YAML, kebab case: {@code batch-size} */
    public String key() {
        return key;
    }

    /** @return the type of its value */
    public Class<T> type() {
        return type;
    }

    /** @return its default, or {@code null} when it has none or the default is derived from others */
    public T defaultValue() {
        return defaultValue;
    }

    /** @return its default as the documentation shows it: {@code 100}, {@code 2s}, {@code none} */
    public String defaultText() {
        return defaultText;
    }

    /** @return whether the setting may be left unset ({@code null}) */
    public boolean optional() {
        return optional;
    }

    /** @return its limits as the documentation shows them, {@code 1..10000}; empty when it has none */
    public String limits() {
        if (type.isEnum() && rules.isEmpty()) {
            return String.join(
                    " or ",
                    Arrays.stream(type.getEnumConstants()).map(String::valueOf).toList());
        }
        return String.join(", ", rules.stream().map(Rule::limit).toList());
    }

    /** @return one line of documentation */
    public String doc() {
        return doc;
    }

    /**
     * @param value the value to check, {@code null} when it is not set
     * @param spelled the setting's name as the caller wrote it, for the message
     * @return {@code value}, or the default when {@code value} is {@code null}
     * @throws OutboxValidationException naming {@code spelled}, the value and the limit it breaks, or
     *     that it is missing
     */
    public T check(T value, String spelled) {
        T v = value != null ? value : defaultValue;
        if (v == null) {
            if (optional) {
                return null;
            }
            throw OutboxValidationException.missing(spelled);
        }
        for (Rule<T> rule : rules) {
            if (!rule.holds().test(v)) {
                throw OutboxValidationException.rule(spelled, show(v), rule.must(), rule.limit());
            }
        }
        return v;
    }

    /** The longest text a message quotes of a value. */
    private static final int SHOWN_CHARACTERS = 80;

    /**
     * @param value a value of this setting
     * @return the value as messages and docs show it: a duration as {@code 2s} or {@code 250ms}; a text in
     *     quotes, with line breaks and other control characters escaped (so a value cannot forge a line of
     *     a log) and cut after 80 characters
     */
    public static String show(Object value) {
        if (value instanceof Duration d) {
            return DurationText.format(d);
        }
        if (value instanceof CharSequence text) {
            return quote(text);
        }
        if (value instanceof double[] numbers) {
            return Arrays.toString(numbers);
        }
        return String.valueOf(value);
    }

    private static String quote(CharSequence text) {
        StringBuilder out = new StringBuilder("'");
        int shown = Math.min(text.length(), SHOWN_CHARACTERS);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || Character.isSurrogate(c) || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('\'');
        if (text.length() > shown) {
            out.append(" (").append(text.length()).append(" characters)");
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * @param camel a Java name, {@code maxInFlightBatches}
     * @return its kebab form, {@code max-in-flight-batches}
     */
    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** A rule a value must keep: what it must do, and the limit as docs and errors show it. */
    private record Rule<T>(Predicate<? super T> holds, String must, String limit) {}

    /**
     * Builds a {@link Setting}.
     *
     * @param <T> the type of the setting's value
     */
    public static final class Builder<T> {
        private final String name;
        private final Class<T> type;
        private String key;
        private T defaultValue;
        private String defaultText;
        private boolean optional;
        private final List<Rule<T>> rules = new ArrayList<>();
        private String doc;

        private Builder(String name, Class<T> type) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("a setting's name is camel case, got '" + name + "'");
            }
            this.name = name;
            this.type = Objects.requireNonNull(type, "type");
        }

        /**
         * @param key its key in properties and YAML where that is not the kebab form of its name
         * @return this builder
         */
        public Builder<T> key(String key) {
            this.key = key;
            return this;
        }

        /**
         * @param value the value an unset setting takes
         * @return this builder
         */
        public Builder<T> defaultValue(T value) {
            this.defaultValue = value;
            return this;
        }

        /**
         * @param text how the documentation describes a default that is derived from other settings or
         *     the machine ({@code 1/16 of the heap, 1 to 16 MiB})
         * @return this builder
         */
        public Builder<T> defaultText(String text) {
            this.defaultText = text;
            return this;
        }

        /**
         * The setting may be left unset: its value is then {@code null}, which the code that uses it reads
         * as "none" or derives from other settings.
         *
         * @return this builder
         */
        public Builder<T> optional() {
            this.optional = true;
            return this;
        }

        /**
         * @param holds whether a value keeps the rule
         * @param must what a value must do, for the message: {@code be positive}
         * @param limit the limit, for {@link OutboxValidationException#limit()} and the docs: {@code > 0}
         * @return this builder
         */
        public Builder<T> rule(Predicate<? super T> holds, String must, String limit) {
            rules.add(new Rule<>(holds, must, limit));
            return this;
        }

        /**
         * @param min the smallest value
         * @param max the largest value
         * @return this builder, for a numeric setting
         */
        public Builder<T> between(long min, long max) {
            return rule(
                    v -> ((Number) v).longValue() >= min && ((Number) v).longValue() <= max,
                    "be between " + min + " and " + max,
                    min + ".." + max);
        }

        /** @return this builder, for a numeric setting that must be 1 or more */
        public Builder<T> positiveNumber() {
            return rule(v -> ((Number) v).longValue() >= 1, "be 1 or more", ">= 1");
        }

        /**
         * @param max the longest duration
         * @return this builder, for a duration that must be positive and at most {@code max}
         */
        public Builder<T> positiveUpTo(Duration max) {
            rule(v -> !((Duration) v).isNegative() && !((Duration) v).isZero(), "be positive", "> 0");
            return rule(
                    v -> ((Duration) v).compareTo(max) <= 0,
                    "be at most " + DurationText.format(max),
                    "<= " + DurationText.format(max));
        }

        /**
         * @param max the longest duration
         * @return this builder, for a duration that must not be negative and at most {@code max}
         */
        public Builder<T> notNegativeUpTo(Duration max) {
            rule(v -> !((Duration) v).isNegative(), "not be negative", ">= 0");
            return rule(
                    v -> ((Duration) v).compareTo(max) <= 0,
                    "be at most " + DurationText.format(max),
                    "<= " + DurationText.format(max));
        }

        /**
         * @param pattern what a text must match, whole
         * @param must what that means in words: {@code be 1 to 64 letters, digits, '.', '_' or '-'}
         * @return this builder, for a text setting
         */
        public Builder<T> matching(Pattern pattern, String must) {
            return rule(v -> pattern.matcher((CharSequence) v).matches(), must, pattern.pattern());
        }

        /**
         * @param doc one line of documentation, a sentence
         * @return this builder
         */
        public Builder<T> doc(String doc) {
            this.doc = doc;
            return this;
        }

        /** @return the descriptor */
        public Setting<T> build() {
            if (doc == null || doc.isBlank()) {
                throw new IllegalStateException("setting " + name + " has no doc");
            }
            if (defaultValue != null && !type.isInstance(defaultValue)) {
                throw new IllegalStateException("setting " + name + "'s default is not a " + type.getSimpleName());
            }
            Setting<T> setting = new Setting<>(this);
            if (defaultValue != null) {
                setting.check(defaultValue, name);
            }
            return setting;
        }
    }
}
