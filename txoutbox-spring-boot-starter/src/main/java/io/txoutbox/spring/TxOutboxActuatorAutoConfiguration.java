package io.txoutbox.spring;

import io.txoutbox.Outbox;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The actuator side, when the application has it: the {@code txoutbox} health indicator (turn it off
 * with {@code management.health.txoutbox.enabled=false}) and the {@code txoutbox} endpoint (available
 * when the application exposes it).
 */
@AutoConfiguration(after = TxOutboxAutoConfiguration.class)
@ConditionalOnSingleCandidate(Outbox.class)
public class TxOutboxActuatorAutoConfiguration {

    /** Created by Spring. */
    public TxOutboxActuatorAutoConfiguration() {}

    /** The health indicator, with Spring Boot's health support on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("txoutbox")
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "txoutboxHealthIndicator")
        HealthIndicator txoutboxHealthIndicator(Outbox outbox, TxOutboxProperties properties) {
            return new TxOutboxHealthIndicator(outbox, properties.health());
        }
    }

    /** The endpoint, with Spring Boot's actuator on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {
                "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
                "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
            })
    @ConditionalOnAvailableEndpoint(TxOutboxEndpoint.class)
    static class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        TxOutboxEndpoint txoutboxEndpoint(Outbox outbox) {
            return new TxOutboxEndpoint(outbox);
        }
    }
}
