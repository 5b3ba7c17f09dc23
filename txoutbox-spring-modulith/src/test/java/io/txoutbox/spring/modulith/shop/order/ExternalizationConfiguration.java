package io.txoutbox.spring.modulith.shop.order;

import io.txoutbox.spring.modulith.ExternalizedEventCustomizer;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.modulith.events.EventExternalizationConfiguration;

/**
 * Which order events leave the application, and with which headers: plain Spring Modulith configuration.
 * {@code shop.custom-externalization=false} leaves the application without one, on Modulith's defaults.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "shop.custom-externalization", havingValue = "true", matchIfMissing = true)
class ExternalizationConfiguration {

    @Bean
    EventExternalizationConfiguration eventExternalizationConfiguration() {
        return EventExternalizationConfiguration.defaults("io.txoutbox.spring.modulith.shop")
                .headers(
                        OrderPlaced.class,
                        event -> Map.of("shop-region", event.region(), "total-cents", event.totalCents()))
                .build();
    }

    /** The txoutbox side: order.placed events carry schema version 2. */
    @Bean
    ExternalizedEventCustomizer orderPlacedVersion() {
        return (event, outboxEvent) -> {
            if (event instanceof OrderPlaced) {
                outboxEvent.version(2);
            }
        };
    }
}
