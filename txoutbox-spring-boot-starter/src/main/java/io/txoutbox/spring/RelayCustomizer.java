package io.txoutbox.spring;

import io.txoutbox.relay.Relay;

/**
 * Adjusts the relay builder after the {@code txoutbox.relay.*} properties were applied and before the
 * relay is built: for settings that are not properties (backoff, thread factory). Define it as a bean;
 * several run in their {@code @Order}.
 */
@FunctionalInterface
public interface RelayCustomizer {
    /** @param builder the relay's builder, with the properties applied */
    void customize(Relay.Builder builder);
}
