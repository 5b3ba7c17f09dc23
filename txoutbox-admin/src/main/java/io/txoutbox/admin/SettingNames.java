package io.txoutbox.admin;

import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renames the library's setting names in its validation messages ({@code Relay.Builder.batchSize},
 * {@code Backoff.max}) to the names a user wrote them under: a Spring property ({@code
 * txoutbox.relay.batch-size}) or a YAML key ({@code sources[0].relay.batch-size}). The rules and their
 * messages live once, in the library; a front end only knows its own names.
 */
public final class SettingNames {
    /** {@code Type.field} or {@code Type.Builder.field}: how the library names a setting. */
    private static final Pattern SETTING = Pattern.compile("\\b[A-Z][A-Za-z0-9]*(?:\\.Builder)?\\.[a-z][A-Za-z0-9]*");

    private SettingNames() {}

    /**
     * @param text a message of the library
     * @param names a setting's name in the front end, for example {@code Relay.Builder.batchSize} to
     *     {@code txoutbox.relay.batch-size}; {@code null} keeps the library's name
     * @return the text with every setting it mentions renamed
     */
    public static String rename(String text, Function<String, String> names) {
        if (text == null) {
            return null;
        }
        Matcher m = SETTING.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = names.apply(m.group());
            m.appendReplacement(out, Matcher.quoteReplacement(name == null ? m.group() : name));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * @param camel a setting's Java name, {@code batchSize}
     * @return its kebab-case form, {@code batch-size}, as Spring properties and YAML keys spell it
     */
    public static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /**
     * @param setting {@code Relay.Builder.batchSize} or {@code Backoff.max}
     * @return the field's own name: {@code batchSize}, {@code max}
     */
    public static String field(String setting) {
        return setting.substring(setting.lastIndexOf('.') + 1);
    }
}
