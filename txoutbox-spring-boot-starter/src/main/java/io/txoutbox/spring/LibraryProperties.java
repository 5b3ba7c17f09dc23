package io.txoutbox.spring;

import io.txoutbox.OutboxSettings;
import io.txoutbox.OutboxTable;
import io.txoutbox.micrometer.MetricsSettings;
import io.txoutbox.relay.Backoff;
import io.txoutbox.relay.RelaySettings;
import io.txoutbox.settings.Setting;
import io.txoutbox.settings.SettingValues;
import io.txoutbox.settings.Spelling;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Binds the library's settings from the application's properties through their descriptors: the outbox's
 * ({@link OutboxSettings}) under {@code txoutbox.*}, the relay's ({@link RelaySettings#SETTINGS}) under
 * {@code txoutbox.relay.*}, its backoff's ({@link Backoff#SETTINGS}) under {@code
 * txoutbox.relay.backoff.*} and the meters' ({@link MetricsSettings}) under {@code txoutbox.metrics.*}. The starter declares none of them: Spring converts each value to its
 * descriptor's type (a value it cannot convert fails naming the property), and the library's rules name a
 * refused setting by its property, {@code txoutbox.relay.batch-size}. The IDE metadata of these properties
 * is generated from the same descriptors ({@code META-INF/additional-spring-configuration-metadata.json},
 * checked by a test).
 */
final class LibraryProperties {
    /** The outbox's properties. */
    static final String PREFIX = "txoutbox";
    /** The relay's properties. */
    static final String RELAY_PREFIX = PREFIX + ".relay";
    /** The relay's backoff properties. */
    static final String BACKOFF_PREFIX = RELAY_PREFIX + ".backoff";
    /** The meters' properties. */
    static final String METRICS_PREFIX = PREFIX + ".metrics";

    /**
     * The outbox settings a Spring application sets by property. Ordered mode, fair claims and
     * change-data-capture mode are set in Java ({@link OutboxCustomizer}): the embedded relay and the
     * modulith externalization are not proven with them here.
     */
    static final List<Setting<?>> OUTBOX = List.of(
            OutboxSettings.TABLE,
            OutboxSettings.MAX_PAYLOAD_BYTES,
            OutboxSettings.CREATE_SCHEMA,
            OutboxSettings.VALIDATE_SCHEMA,
            OutboxSettings.NOTIFY_AFTER_COMMIT,
            OutboxSettings.NOTIFY_WINDOW,
            OutboxSettings.FOREIGN_WRITER_WAKEUPS,
            OutboxSettings.PUBLISHED_PARTITIONS);

    private LibraryProperties() {}

    /**
     * @param environment the application's properties
     * @return the outbox's settings, checked (those that depend on the database again when it is known,
     *     still named by their properties)
     * @throws io.txoutbox.OutboxValidationException naming the property the library refuses
     * @throws org.springframework.boot.context.properties.bind.BindException naming the property whose
     *     text is not of its setting's type
     */
    static OutboxSettings outbox(Environment environment) {
        SettingValues values = values(Binder.get(environment), PREFIX, OUTBOX);
        return OutboxSettings.of(values, OutboxTable.Columns.DEFAULT, null, Spelling.keys(PREFIX));
    }

    /**
     * @param environment the application's properties
     * @return the relay's settings, checked
     * @throws io.txoutbox.OutboxValidationException naming the property the library refuses
     * @throws org.springframework.boot.context.properties.bind.BindException naming the property whose
     *     text is not of its setting's type
     */
    static RelaySettings relay(Environment environment) {
        Binder binder = Binder.get(environment);
        SettingValues relay = values(binder, RELAY_PREFIX, RelaySettings.SETTINGS);
        SettingValues backoff = values(binder, BACKOFF_PREFIX, Backoff.SETTINGS);
        return RelaySettings.of(relay, Backoff.of(backoff, Spelling.keys(BACKOFF_PREFIX)), Spelling.keys(RELAY_PREFIX));
    }

    /**
     * @param environment the application's properties
     * @return the meters' settings, checked
     * @throws io.txoutbox.OutboxValidationException naming the property the library refuses
     */
    static MetricsSettings metrics(Environment environment) {
        SettingValues values = values(Binder.get(environment), METRICS_PREFIX, MetricsSettings.SETTINGS);
        return MetricsSettings.of(values, Spelling.keys(METRICS_PREFIX));
    }

    private static SettingValues values(Binder binder, String prefix, List<Setting<?>> settings) {
        SettingValues values = new SettingValues();
        for (Setting<?> s : settings) {
            bind(binder, prefix, s, values);
        }
        return values;
    }

    private static <T> void bind(Binder binder, String prefix, Setting<T> setting, SettingValues into) {
        binder.bind(prefix + "." + setting.key(), Bindable.of(setting.type())).ifBound(v -> into.set(setting, v));
    }
}
