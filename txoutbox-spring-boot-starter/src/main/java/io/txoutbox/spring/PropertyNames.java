package io.txoutbox.spring;

import io.txoutbox.OutboxValidationException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a builder's rejection ({@code Relay.Builder.batchSize is 0; ...}) into one that names the
 * Spring property to fix ({@code txoutbox.relay.batch-size}).
 */
final class PropertyNames {
    private static final Pattern BUILDER_FIELD =
            Pattern.compile("\\b(?:Outbox\\.Builder|Relay\\.Builder|OutboxMetrics\\.Builder)\\.[a-zA-Z]+");

    private PropertyNames() {}

    static OutboxValidationException translate(OutboxValidationException e) {
        String field = e.field();
        String property = property(field);
        if (property == null || property.equals(field) && e.getMessage().contains(property)) {
            return e;
        }
        return new OutboxValidationException(
                property, e.limit(), "Invalid property " + property + ": " + rename(e.getMessage()));
    }

    /** Replaces every builder field a message mentions with its property. */
    static String rename(String message) {
        Matcher m = BUILDER_FIELD.matcher(message);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String property = property(m.group());
            m.appendReplacement(out, Matcher.quoteReplacement(property == null ? m.group() : property));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** @return the property a builder field is set from, or {@code null} when none is */
    static String property(String field) {
        if (field == null) {
            return null;
        }
        if (field.startsWith("txoutbox.")) {
            return field;
        }
        if (field.startsWith("Outbox.Builder.")) {
            return "txoutbox." + kebab(field.substring("Outbox.Builder.".length()));
        }
        if (field.startsWith("Relay.Builder.")) {
            return "txoutbox.relay." + kebab(field.substring("Relay.Builder.".length()));
        }
        if (field.startsWith("OutboxMetrics.Builder.")) {
            return "txoutbox.metrics." + kebab(field.substring("OutboxMetrics.Builder.".length()));
        }
        return null;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
