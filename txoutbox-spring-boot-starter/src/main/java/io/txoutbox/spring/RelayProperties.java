package io.txoutbox.spring;

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
 * Binds the {@code txoutbox.relay.*} properties through the library's descriptors ({@link
 * RelaySettings#SETTINGS}, and {@link Backoff#SETTINGS} under {@code txoutbox.relay.backoff}): the
 * starter declares no relay setting of its own, Spring converts each value to its descriptor's type (a
 * value it cannot convert fails naming the property), and the library's rules name a refused setting by
 * its property, {@code txoutbox.relay.batch-size}. The IDE metadata of these properties is generated from
 * the same descriptors ({@code META-INF/additional-spring-configuration-metadata.json}, checked by a
 * test).
 */
final class RelayProperties {
    /** The relay's properties. */
    static final String PREFIX = "txoutbox.relay";
    /** The relay's backoff properties. */
    static final String BACKOFF_PREFIX = PREFIX + ".backoff";

    private RelayProperties() {}

    /**
     * @param environment the application's properties
     * @return the relay's settings, checked
     * @throws io.txoutbox.OutboxValidationException naming the property the library refuses
     * @throws org.springframework.boot.context.properties.bind.BindException naming the property whose
     *     text is not of its setting's type
     */
    static RelaySettings bind(Environment environment) {
        Binder binder = Binder.get(environment);
        SettingValues relay = values(binder, PREFIX, RelaySettings.SETTINGS);
        SettingValues backoff = values(binder, BACKOFF_PREFIX, Backoff.SETTINGS);
        return RelaySettings.of(relay, Backoff.of(backoff, Spelling.keys(BACKOFF_PREFIX)), Spelling.keys(PREFIX));
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
