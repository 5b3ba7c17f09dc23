package io.txoutbox.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.txoutbox.Outbox;
import io.txoutbox.OutboxValidationException;
import io.txoutbox.micrometer.OutboxMetrics;
import io.txoutbox.spi.RelayListener;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Registers {@link OutboxMetrics} in the application's {@link MeterRegistry} (when it has one) and hands
 * its listener to the relay as a {@link RelayListener} bean. Turn it off with {@code
 * txoutbox.metrics.enabled=false}.
 */
@AutoConfiguration(
        after = TxOutboxAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, OutboxMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnSingleCandidate(Outbox.class)
@ConditionalOnProperty(prefix = "txoutbox.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
public class TxOutboxMetricsAutoConfiguration {

    /** Created by Spring. */
    public TxOutboxMetricsAutoConfiguration() {}

    /**
     * @param outbox the outbox whose table the gauges read
     * @param registry the application's registry
     * @param environment the {@code txoutbox.metrics.*} properties, bound through the library's descriptors
     * @return the meters; closed (removed from the registry) with the context
     * @throws OutboxValidationException naming the property that is invalid
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public OutboxMetrics txoutboxMetrics(Outbox outbox, MeterRegistry registry, Environment environment) {
        return OutboxMetrics.builder(outbox, registry)
                .settings(LibraryProperties.metrics(environment))
                .build();
    }

    /**
     * @param metrics the meters
     * @return the listener the relay reports its batches and failures to
     */
    @Bean
    public RelayListener txoutboxMetricsRelayListener(OutboxMetrics metrics) {
        return metrics.relayListener();
    }
}
