package io.txoutbox.examples.modulith.order;

import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.modulith.events.EventExternalizationConfiguration;

/**
 * Plain Spring Modulith configuration: which events leave (the {@code @Externalized} ones of the shop) and
 * the headers they carry. txoutbox reads it as it is.
 */
@Configuration(proxyBeanMethods = false)
class OrderExternalization {

    @Bean
    EventExternalizationConfiguration eventExternalizationConfiguration() {
        return EventExternalizationConfiguration.defaults("io.txoutbox.examples.modulith")
                .headers(OrderPlaced.class, event -> Map.of("shop-customer-tier", tier(event.totalCents())))
                .build();
    }

    private static String tier(int totalCents) {
        return totalCents >= 5_000 ? "gold" : "standard";
    }
}
