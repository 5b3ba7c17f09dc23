package io.txoutbox.spring;

import io.txoutbox.OutboxValidationException;
import io.txoutbox.admin.SettingNames;

/**
 * Turns a builder's rejection ({@code Relay.Builder.batchSize is 0; ...}) into one that names the
 * Spring property to fix ({@code txoutbox.relay.batch-size}).
 */
final class PropertyNames {
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
        return SettingNames.rename(message, PropertyNames::property);
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
            return "txoutbox." + SettingNames.kebab(SettingNames.field(field));
        }
        if (field.startsWith("Relay.Builder.")) {
            return "txoutbox.relay." + SettingNames.kebab(SettingNames.field(field));
        }
        if (field.startsWith("OutboxMetrics.Builder.")) {
            return "txoutbox.metrics." + SettingNames.kebab(SettingNames.field(field));
        }
        return null;
    }
}
